build-portable/src/format/md_html.o: src/format/md_html.c \
 src/format/md_html.h
src/format/md_html.h:
