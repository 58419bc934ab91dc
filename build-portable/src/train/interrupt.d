build-portable/src/train/interrupt.o: src/train/interrupt.c \
 src/train/interrupt.h src/util/atomic_file.h
src/train/interrupt.h:
src/util/atomic_file.h:
