// dispatch.c — the pointers through which the rest of the program calls the
// kernels (kernels/isa.h), set once before main to the chosen path's variants.
//
// A constructor rather than a call in main: every program linked with the
// kernels (lmtrain, each test, the bench tools) gets the same choice, from the
// same LMTRAIN_ISA, before its first product. A refused LMTRAIN_ISA stops the
// process there, exit 2, before anything runs.
#include <stdio.h>
#include <stdlib.h>

#include "kernels/cpu.h"
#include "kernels/dispatch_table.h"
#include "kernels/fma_chains.h"
#include "kernels/gemm.h"
#include "kernels/matvec.h"
#include "kernels/matvec_i8.h"
#include "kernels/nn.h"
#include "kernels/vexp.h"

static int chosen = -1;

KernelIsa kernel_isa(void) {
    if (chosen < 0) {
        char err[256];
        chosen = kernel_isa_choose(cpu_info(), getenv("LMTRAIN_ISA"), err, sizeof err);
        if (chosen < 0) {
            fprintf(stderr, "lmtrain: %s\n", err);
            exit(2);
        }
    }
    return (KernelIsa)chosen;
}

KERNEL_DISPATCH_TABLE(KERNEL_FUNCS, kernels_select)
