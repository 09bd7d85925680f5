/* page.c: the one HTML file.
 *
 * The template (page.html) and its style sheet and script (explore.css,
 * explore.js) are compiled into the program: the Makefile turns them into
 * C arrays with `xxd -i` (build/passes/rake-explore/assets.c), so the
 * page needs nothing at run time and loads nothing over a network.  The
 * template holds four markers, each replaced once:
 *   {{TITLE}}  the title, HTML-escaped (& < > " ');
 *   {{CSS}}    explore.css, inside <style>;
 *   {{JS}}     explore.js, inside <script>;
 *   {{DATA}}   the data object as compact JSON inside
 *              <script type="application/json">, keys in insertion
 *              order, with every <, > and & written \u003c, \u003e,
 *              \u0026, so no text of the program (a `</script>` in a
 *              comment) can end the element.  Those three characters
 *              occur in JSON only inside strings, where the escapes mean
 *              the same characters.
 * The style sheet and the script are ours; they are checked not to hold
 * `</script` or `</style` anyway. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "explore.h"

extern unsigned char page_html[], explore_css[], explore_js[];
extern unsigned int page_html_len, explore_css_len, explore_js_len;

static void put_html(const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", stdout); break;
        case '<': fputs("&lt;", stdout); break;
        case '>': fputs("&gt;", stdout); break;
        case '"': fputs("&quot;", stdout); break;
        case '\'': fputs("&#39;", stdout); break;
        default: putchar(*s);
        }
    }
}

static void put_data(json_t *data)
{
    char *s = json_dumps(data, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!s)
        rk_diag_internal("the page's data could not be written as JSON");
    for (const char *p = s; *p; p++) {
        switch (*p) {
        case '<': fputs("\\u003c", stdout); break;
        case '>': fputs("\\u003e", stdout); break;
        case '&': fputs("\\u0026", stdout); break;
        default: putchar(*p);
        }
    }
    free(s);
}

static void put_asset(const unsigned char *a, unsigned int n, const char *name)
{
    for (unsigned int i = 0; i + 7 < n; i++)
        if (a[i] == '<' && a[i + 1] == '/' &&
            (!strncasecmp((const char *)a + i + 2, "script", 6) ||
             !strncasecmp((const char *)a + i + 2, "style", 5)))
            rk_diag_internal("%s holds '%.8s', which would end its element", name, a + i);
    fwrite(a, 1, n, stdout);
}

/* The marker at p (after its "{{"), written; its length, or 0. */
static size_t marker(const char *p, size_t left, json_t *data, const char *title)
{
    static const char *const names[] = {"TITLE}}", "CSS}}", "JS}}", "DATA}}"};
    for (int k = 0; k < 4; k++) {
        size_t n = strlen(names[k]);
        if (left < n || memcmp(p, names[k], n))
            continue;
        if (k == 0)
            put_html(title);
        else if (k == 1)
            put_asset(explore_css, explore_css_len, "explore.css");
        else if (k == 2)
            put_asset(explore_js, explore_js_len, "explore.js");
        else
            put_data(data);
        return n;
    }
    return 0;
}

void ex_page_write(json_t *data, const char *title)
{
    const char *t = (const char *)page_html;
    size_t n = page_html_len;
    for (size_t i = 0; i < n; i++) {
        if (i + 1 < n && t[i] == '{' && t[i + 1] == '{') {
            size_t used = marker(t + i + 2, n - i - 2, data, ex_utf8(title));
            if (used) {
                i += 1 + used;
                continue;
            }
        }
        putchar(t[i]);
    }
    if (fflush(stdout) || ferror(stdout))
        rk_diag_internal("writing the page failed");
}
