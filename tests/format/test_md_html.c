// test_md_html.c — report.md's Markdown subset as HTML: headings, pipe tables
// with alignment, lists, paragraphs, inline code/strong/em, and escaping (no
// markup from the input survives).
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "format/md_html.h"

static char *html(const char *md) {
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    if (!f) exit(1);
    md_to_html(md, f);
    fclose(f);
    return buf;
}

static void test_blocks(void) {
    char *h = html("# Title\n\nsome *text* and `a<b>`\nmore\n\n## Table\n\n| kind | loss |\n|---|---:|\n"
                   "| softmax | 1.92 |\n| **linear** | 1.98 |\n\n- one\n- two\nafter\n");
    CHECK(strstr(h, "<h1>Title</h1>") != NULL);
    CHECK(strstr(h, "<p>some <em>text</em> and <code>a&lt;b&gt;</code>\nmore</p>") != NULL);
    CHECK(strstr(h, "<h2>Table</h2>") != NULL);
    CHECK(strstr(h, "<thead><tr><th>kind</th><th class=\"r\">loss</th></tr>\n</thead><tbody>") != NULL);
    CHECK(strstr(h, "<tr><td>softmax</td><td class=\"r\">1.92</td></tr>") != NULL);
    CHECK(strstr(h, "<tr><td><strong>linear</strong></td><td class=\"r\">1.98</td></tr>\n</tbody></table>") != NULL);
    CHECK(strstr(h, "<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n<p>after</p>") != NULL);
    free(h);
}

static void test_escaping(void) {
    char *h = html("<script>alert(1)</script> & \"q\"\n\n| a <b> |\n");
    CHECK(strstr(h, "<script") == NULL);
    CHECK(strstr(h, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot;") != NULL);
    CHECK(strstr(h, "<table") == NULL);  // a row without an alignment row is text
    CHECK(strstr(h, "| a &lt;b&gt; |") != NULL);
    free(h);
    // unmatched markers stay text; * inside code is literal
    h = html("5 * 3 and `x*y` **open\n");
    CHECK(strstr(h, "<p>5 * 3 and <code>x*y</code> **open</p>") != NULL);
    free(h);
}

int main(void) {
    TEST(test_blocks);
    TEST(test_escaping);
    return test_summary();
}
