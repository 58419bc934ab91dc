build-portable/src/format/fp16.o: src/format/fp16.c src/format/fp16.h
src/format/fp16.h:
