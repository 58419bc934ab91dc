build-portable/src/cmd/args.o: src/cmd/args.c src/cmd/args.h \
 src/util/err.h
src/cmd/args.h:
src/util/err.h:
