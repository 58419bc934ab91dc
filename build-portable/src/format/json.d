build-portable/src/format/json.o: src/format/json.c src/format/json.h
src/format/json.h:
