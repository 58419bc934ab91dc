build-portable/src/attention/feature_map.o: src/attention/feature_map.c \
 src/attention/feature_map.h src/attention/options.h
src/attention/feature_map.h:
src/attention/options.h:
