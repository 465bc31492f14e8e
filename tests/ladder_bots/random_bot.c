/* A random bot in C for the ladder's tests: the protocol (docs/protocol.md) read with
   plain string searches, which is enough for the messages a bot must answer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The string value of "key" in line (NULL if absent); `len` gets its length. */
static const char *value_of(const char *line, const char *key, size_t *len) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\"", key);
    const char *at = strstr(line, pattern);
    if (!at) return NULL;
    at = strchr(at + strlen(pattern), ':');
    if (!at) return NULL;
    while (*++at == ' ') {}
    if (*at != '"') return at;
    const char *end = at + 1;
    while (*end && *end != '"') end += (*end == '\\' && end[1]) ? 2 : 1;
    *len = (size_t)(end - at - 1);
    return at + 1;
}

int main(void) {
    const char *seed = getenv("ARENA_BOT_SEED");
    srand(seed ? (unsigned)strtoul(seed, NULL, 10) : 1u);
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, stdin) > 0) {
        size_t n = 0;
        const char *type = value_of(line, "type", &n);
        if (!type) continue;
        if (n == 5 && !strncmp(type, "hello", 5)) {
            puts("{\"type\": \"ready\", \"name\": \"c-random\", \"observation\": false}");
        } else if (n == 4 && !strncmp(type, "quit", 4)) {
            break;
        } else if (n == 7 && !strncmp(type, "request", 7)) {
            const char *legal = strstr(line, "\"legal\"");
            if (!legal) continue;
            legal = strchr(legal, '[');
            /* count the actions, then take the k-th */
            int count = 0;
            for (const char *p = legal; *p && *p != ']'; p++) {
                if (*p == '"') { count++; p++; while (*p && *p != '"') p += (*p == '\\' && p[1]) ? 2 : 1; }
            }
            if (count == 0) continue;
            int pick = rand() % count, k = 0;
            for (const char *p = legal; *p && *p != ']'; p++) {
                if (*p != '"') continue;
                const char *start = ++p;
                while (*p && *p != '"') p += (*p == '\\' && p[1]) ? 2 : 1;
                if (k++ == pick) {
                    printf("{\"type\": \"action\", \"action\": \"%.*s\"}\n", (int)(p - start), start);
                    break;
                }
            }
        }
        fflush(stdout);
    }
    free(line);
    return 0;
}
