/* A minimal bot in C for the benchmark: answers hello with ready and every request
 * with the first legal action, as fast as a bot can. Not a general JSON parser: it
 * finds "legal":[" and copies up to the next quote (enough for the arena's actions). */
#include <string.h>
#include <unistd.h>

static char buf[1 << 22];
static size_t len;

static void say(const char *text, size_t n) {
    while (n > 0) {
        ssize_t w = write(1, text, n);
        if (w <= 0) _exit(1);
        text += w;
        n -= (size_t)w;
    }
}

static void handle(char *line) {
    static const char ready[] = "{\"type\":\"ready\",\"name\":\"echo-c\",\"observation\":false}\n";
    static char reply[4096];
    if (strstr(line, "\"type\":\"hello\"")) {
        say(ready, sizeof ready - 1);
    } else if (strstr(line, "\"type\":\"request\"")) {
        char *start = strstr(line, "\"legal\":[\"");
        if (!start) return;
        start += 10;
        char *end = strchr(start, '"');
        if (!end || end - start > 4000) return;
        size_t n = (size_t)(end - start);
        memcpy(reply, "{\"type\":\"action\",\"action\":\"", 27);
        memcpy(reply + 27, start, n);
        memcpy(reply + 27 + n, "\"}\n", 3);
        say(reply, 27 + n + 3);
    } else if (strstr(line, "\"type\":\"quit\"")) {
        _exit(0);
    }
}

int main(void) {
    for (;;) {
        ssize_t r = read(0, buf + len, sizeof buf - 1 - len);
        if (r <= 0) return 0;
        len += (size_t)r;
        buf[len] = 0;
        char *line = buf, *nl;
        while ((nl = memchr(line, '\n', len - (size_t)(line - buf)))) {
            *nl = 0;
            handle(line);
            line = nl + 1;
        }
        len -= (size_t)(line - buf);
        memmove(buf, line, len);
        if (len >= sizeof buf - 1) len = 0; /* an absurd line: drop it */
    }
}
