#!/bin/sh
# The folders of src/ are layers: each may include only itself and the folders
# before it in LAYERS (no arrow runs back up). A new folder must be placed here.
LAYERS="util format kernels attention config autograd model train experiment lab bench cmd"
bad=0
for dir in src/*/; do
    d=$(basename "$dir")
    case " $LAYERS " in *" $d "*) ;; *) echo "layers: src/$d is not in tests/layers.sh's LAYERS"; bad=1; continue ;; esac
    allowed=""
    for l in $LAYERS; do allowed="$allowed $l"; [ "$l" = "$d" ] && break; done
    for inc in $(grep -ho '#include "[a-z_]*/' "$dir"*.[ch] 2>/dev/null | sed 's/#include "//; s#/##' | sort -u); do
        case " $allowed " in *" $inc "*) ;; *)
            echo "layers: src/$d includes $inc/, a layer above it:"
            grep -n "#include \"$inc/" "$dir"*.[ch] | sed 's/^/  /'
            bad=1 ;;
        esac
    done
done
[ $bad -eq 0 ] && echo "layers: every include runs down ($LAYERS)"
exit $bad
