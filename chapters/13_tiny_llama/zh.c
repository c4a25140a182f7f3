/* zh.c — chapter 13's narration in Chinese (lang.h): each English string as main.c
 * writes it, beside its translation. Terms: docs/GLOSSARY.md. */
#include "common/program/lang.h"

extern const LangPair chapter13_zh[];

const LangPair chapter13_zh[] = {
    {NULL, NULL}};
