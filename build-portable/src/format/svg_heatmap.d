build-portable/src/format/svg_heatmap.o: src/format/svg_heatmap.c \
 src/format/svg_heatmap.h src/format/svg.h src/util/atomic_file.h \
 src/util/err.h
src/format/svg_heatmap.h:
src/format/svg.h:
src/util/atomic_file.h:
src/util/err.h:
