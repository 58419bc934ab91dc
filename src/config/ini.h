// ini.h — the INI tokenizer: lines in, (section | key, value | error) out.
//
// Knows nothing about lmtrain's keys; config.c gives the tokens meaning.
// Syntax accepted (SPEC §3):
//   [section]                    whitespace inside the brackets is trimmed
//   key = value                  key and value trimmed; the value may be empty
//   key = "quoted value"         \" and \\ are escapes inside quotes; any other
//                                backslash is literal
//   # comment   or   ; comment   full-line comments
//   key = value  # comment       a trailing comment needs whitespace before it,
//                                so `name = run#2` keeps its '#'
// Blank lines are skipped; CRLF line ends and a leading UTF-8 BOM are accepted.
#pragma once
#include <stddef.h>
#include <stdio.h>

typedef enum { INI_END, INI_BLANK, INI_SECTION, INI_PAIR, INI_ERROR } IniKind;

typedef struct {
    IniKind kind;
    int line;              // 1-based line number (set by ini_next)
    const char *section;   // INI_SECTION: the name inside the brackets
    const char *key;       // INI_PAIR
    const char *value;     // INI_PAIR: trimmed, unquoted, trailing comment removed
    const char *error;     // INI_ERROR: what is wrong with the line (static text)
} IniLine;

typedef struct {
    FILE *f;
    char *buf;             // getline buffer; the IniLine strings point into it
    size_t cap;
    int line;              // number of the line last read
} IniReader;

void ini_open(IniReader *r, FILE *f);
// Frees the line buffer (the caller closes the FILE).
void ini_close(IniReader *r);

// Reads up to the next section, pair or malformed line. Returns its kind, or
// INI_END at end of file or on a read error (tell them apart with ferror).
// The strings in *out stay valid until the next call.
IniKind ini_next(IniReader *r, IniLine *out);

// Tokenizes one line (without its newline) in place. Returns INI_BLANK for
// blank and comment lines.
IniKind ini_parse_line(char *line, IniLine *out);

// Turns a raw value in place into its text: trims it, drops a trailing
// comment if allow_comment, and unquotes "...". Sets *out and returns NULL, or
// returns a static description of the problem.
const char *ini_parse_value(char *s, int allow_comment, char **out);
