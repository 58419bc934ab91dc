build-avx2/src/config/ini.o: src/config/ini.c src/config/ini.h
src/config/ini.h:
