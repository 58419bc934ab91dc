build-portable/src/main.o: src/main.c src/cmd/commands.h src/util/err.h \
 src/util/pool.h
src/cmd/commands.h:
src/util/err.h:
src/util/pool.h:
