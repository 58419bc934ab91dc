build-portable/src/cmd/gradcheck.o: src/cmd/gradcheck.c \
 src/autograd/gradcheck.h src/autograd/tape.h src/model/model_gradcheck.h \
 src/cmd/args.h src/cmd/commands.h src/util/err.h
src/autograd/gradcheck.h:
src/autograd/tape.h:
src/model/model_gradcheck.h:
src/cmd/args.h:
src/cmd/commands.h:
src/util/err.h:
