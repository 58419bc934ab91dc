build-portable/src/experiment/eval_summary.o: \
 src/experiment/eval_summary.c src/experiment/eval_summary.h \
 src/util/atomic_file.h src/util/err.h src/util/file_check.h
src/experiment/eval_summary.h:
src/util/atomic_file.h:
src/util/err.h:
src/util/file_check.h:
