build-portable/src/config/ini.o: src/config/ini.c src/config/ini.h
src/config/ini.h:
