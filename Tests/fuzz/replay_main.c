/*
 * replay_main.c: runs a fuzz target's LLVMFuzzerTestOneInput once on each file named
 * on the command line, without libFuzzer: how the committed corpus (seeds and every
 * input that once found a bug) is replayed against the normal build (Tests/abi).
 * Prints "replayed N inputs" at the end.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
    int replayed = 0;
    for (int i = 1; i < argc; i++) {
        FILE *file = fopen(argv[i], "rb");
        if (!file) {
            perror(argv[i]);
            return 2;
        }
        uint8_t *data = NULL;
        size_t size = 0, capacity = 0;
        for (;;) {
            if (size == capacity) {
                capacity = capacity ? capacity * 2 : 4096;
                data = realloc(data, capacity);
                if (!data) return 2;
            }
            size_t got = fread(data + size, 1, capacity - size, file);
            if (got == 0) break;
            size += got;
        }
        fclose(file);
        LLVMFuzzerTestOneInput(data, size);
        free(data);
        replayed++;
    }
    printf("replayed %d inputs\n", replayed);
    return 0;
}
