/* test_similarity_winnow.c — make similarity's winnowing and normalisation
 * (scripts/exercises/similarity.c) on small inputs whose answers are worked out
 * by hand here, and the example of Schleimer, Wilkerson, Aiken, "Winnowing:
 * local algorithms for document fingerprinting" (SIGMOD 2003), Figure 2. */
#define SIMILARITY_NO_MAIN
#include "scripts/exercises/similarity.c"

#include "tests/harness.h"

static void check_positions(const uint64_t *h, size_t n, size_t w, const size_t *want, size_t nwant) {
    size_t pos[32];
    size_t np = sim_winnow(h, n, w, pos);
    CHECK_EQ_INT((long long)np, (long long)nwant);
    for (size_t i = 0; i < np && i < nwant; i++) CHECK_EQ_INT((long long)pos[i], (long long)want[i]);
}

/* Figure 2 (e)-(g): 17 hashes, windows of 4 -> [17,3] [17,6] [8,8] [39,11] [17,15] */
static void test_paper_example(void) {
    const uint64_t h[] = {77, 74, 42, 17, 98, 50, 17, 98, 8, 88, 67, 39, 77, 74, 42, 17, 98};
    const size_t want[] = {3, 6, 8, 11, 15};
    check_positions(h, 17, 4, want, 5);
}

/* ties: the rightmost minimum of each window; a position is kept once */
static void test_rightmost_ties(void) {
    const uint64_t same[] = {5, 5, 5, 5};
    const size_t want1[] = {1, 2, 3}; /* windows (0,1) (1,2) (2,3) */
    check_positions(same, 4, 2, want1, 3);
    const uint64_t h[] = {3, 1, 4, 1, 5};
    const size_t want2[] = {1, 3}; /* (3,1,4) -> 1; (1,4,1) -> 3; (4,1,5) -> 3 again */
    check_positions(h, 5, 3, want2, 2);
    const size_t want3[] = {0, 1, 2, 3, 4}; /* w = 1: every hash */
    check_positions(h, 5, 1, want3, 5);
}

/* fewer hashes than a window: one window, the whole text; none: nothing */
static void test_short_texts(void) {
    const uint64_t h[] = {9, 2, 7};
    const size_t want[] = {1};
    check_positions(h, 3, 5, want, 1);
    check_positions(h, 0, 4, want, 0);
}

static void test_jaccard(void) {
    const uint64_t a[] = {1, 2, 3}, b[] = {2, 3, 4}, c[] = {7};
    CHECK_CLOSE(sim_jaccard(a, 3, b, 3), 0.5, 1e-12); /* {2,3} of {1,2,3,4} */
    CHECK_CLOSE(sim_jaccard(a, 3, a, 3), 1.0, 1e-12);
    CHECK_CLOSE(sim_jaccard(a, 3, c, 1), 0.0, 1e-12);
    CHECK_CLOSE(sim_jaccard(a, 0, c, 0), 0.0, 1e-12);
}

static char *joined(const char *src) {
    Tokens t = {NULL, 0, 0};
    tokenize(src, strlen(src), &t);
    static char buf[512];
    buf[0] = '\0';
    for (size_t i = 0; i < t.n; i++) {
        if (i) strcat(buf, " ");
        strcat(buf, t.tok[i]);
    }
    tok_free(&t);
    return buf;
}

/* comments, layout, names and literals go; keywords and punctuators stay, but
 * parentheses and empty statements (padding) go */
static void test_normalise(void) {
    CHECK(!strcmp(joined("int x = 1; // one"), "int I = N ;"));
    CHECK(!strcmp(joined("for(long i=0;i<n;i++){s+=a[i]*.5e-3f;}"),
                  "for long I = N ; I < I ; I ++ { I += I [ I ] * N ; }"));
    char pad[512];
    strcpy(pad, joined("x = ((f((a)) + (b)));;; { ; y = 1; };"));
    CHECK(!strcmp(pad, joined("x = f(a) + b; { y = 1; }")));
    CHECK(!strcmp(joined("/* c */ p->q <<= \"a\\\"b\" , 'x' <: :> ;"), "I -> I <<= S , C [ ] ;"));
    CHECK(!strcmp(joined("a\\\nb"), "I")); /* a line splice joins one identifier */
    char one[512];
    strcpy(one, joined("float w = t_flat_get(weights, idx); /* one */"));
    CHECK(!strcmp(one, joined("float   pr=\n  t_flat_get( W,j ) ;// two")));
}

/* a renamed, reformatted copy has the same fingerprints */
static void test_prints_of_copy(void) {
    const char *a = "while (idx < total) { float w = f(x, idx); dst[idx] = w > 0 ? -w * g(w) : 0; idx++; }";
    const char *b = "while(j<N)\n{\n  float pr = h(y, j); // c\n  o[j] = pr > 0 ? -pr * q(pr) : 0;\n  j++;\n}";
    Tokens ta = {NULL, 0, 0}, tb = {NULL, 0, 0};
    tokenize(a, strlen(a), &ta);
    tokenize(b, strlen(b), &tb);
    Prints pa = prints_of(&ta, 5, 4, NULL), pb = prints_of(&tb, 5, 4, NULL);
    CHECK(pa.n > 3);
    CHECK_CLOSE(sim_jaccard(pa.fp, pa.n, pb.fp, pb.n), 1.0, 1e-12);
    free(pa.fp);
    free(pb.fp);
    tok_free(&ta);
    tok_free(&tb);
}

int main(void) {
    RUN(test_paper_example);
    RUN(test_rightmost_ties);
    RUN(test_short_texts);
    RUN(test_jaccard);
    RUN(test_normalise);
    RUN(test_prints_of_copy);
    return harness_finish("test_similarity_winnow");
}
