build-portable/src/cmd/commands.o: src/cmd/commands.c src/cmd/commands.h
src/cmd/commands.h:
