// The one C function Embedded Swift's standard library asks the platform for when it
// reads a Double from text (FusionJSON's numbers): wasi-libc's strtod, in the C locale
// (the only one wasi-libc has).
#include <stdlib.h>

const char *_swift_stdlib_strtod_clocale(const char *nptr, double *outResult) {
    char *end = NULL;
    *outResult = strtod(nptr, &end);
    return end == nptr ? NULL : end;
}
