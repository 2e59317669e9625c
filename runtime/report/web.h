/* runtime/report/web.h: the files of runtime/report/web/ (the flame graph's
 * script and style, the page of `sprof serve`), embedded into the binary at
 * build time by stdlib/embed.cmake: written into every SVG and served by
 * serve.c with no file and no network. */
#ifndef SPROF_RUNTIME_REPORT_WEB_H
#define SPROF_RUNTIME_REPORT_WEB_H

/* The text of web/NAME ("flame.js"), or NULL when there is no such file. */
const char *sp_web_text(const char *name);

#endif
