build-portable/src/util/binfile.o: src/util/binfile.c src/util/binfile.h \
 src/util/atomic_file.h src/util/err.h src/util/file_check.h
src/util/binfile.h:
src/util/atomic_file.h:
src/util/err.h:
src/util/file_check.h:
