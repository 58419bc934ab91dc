build-portable/src/model/sampler.o: src/model/sampler.c \
 src/model/sampler.h src/util/rng.h src/util/err.h
src/model/sampler.h:
src/util/rng.h:
src/util/err.h:
