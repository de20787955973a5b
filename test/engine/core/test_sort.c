/* The step's sort (engine/core/sort.h): ascending by the caller's order, a
 * permutation of its input, with a total order the one sorted order
 * whatever the input order (so a tie broken by original position gives a
 * stable sort's result), edge sizes, and a loud refusal of elements larger
 * than it moves. */
#include <signal.h>
#include <stdlib.h>

#include "core/sort.h"
#include "test_util.h"

typedef struct item {
  double key;
  int pos; /* original position: the tie-break */
} item;

static int item_before(const void* a, const void* b, void* ctx) {
  const item *x = a, *y = b;
  (void)ctx;
  return x->key != y->key ? x->key < y->key : x->pos < y->pos;
}

/* n items with keys from few values (many ties) */
static void fill(item* v, int n, unsigned seed) {
  srand(seed);
  for (int i = 0; i < n; i++) v[i] = (item){(double)(rand() % 17), i};
}

START_TEST(test_sorted_stable_order_and_permutation) {
  enum { N = 1000 }; /* 16 kB: where the C library's qsort would malloc */
  item v[N], ref[N];
  fill(v, N, 3);
  /* reference: insertion sort by key alone (stable) */
  for (int i = 0; i < N; i++) {
    int j = i;
    ref[i] = v[i];
    while (j > 0 && ref[j - 1].key > ref[j].key) {
      item t = ref[j];
      ref[j] = ref[j - 1], ref[j - 1] = t;
      j--;
    }
  }
  imp_heapsort(v, N, sizeof *v, item_before, NULL);
  for (int i = 0; i < N; i++) {
    ck_assert(v[i].key == ref[i].key);
    ck_assert_int_eq(v[i].pos, ref[i].pos);
  }
}
END_TEST

START_TEST(test_result_independent_of_input_order) {
  enum { N = 257 };
  item a[N], b[N];
  fill(a, N, 5);
  /* b: a reversed, then a's sort and b's must agree entry by entry */
  for (int i = 0; i < N; i++) b[i] = a[N - 1 - i];
  imp_heapsort(a, N, sizeof *a, item_before, NULL);
  imp_heapsort(b, N, sizeof *b, item_before, NULL);
  for (int i = 0; i < N; i++) ck_assert(a[i].key == b[i].key && a[i].pos == b[i].pos);
}
END_TEST

START_TEST(test_small_sizes) {
  item v[2] = {{2, 0}, {1, 1}};
  imp_heapsort(v, 0, sizeof *v, item_before, NULL);
  imp_heapsort(v, 1, sizeof *v, item_before, NULL);
  ck_assert(v[0].key == 2 && v[1].key == 1); /* n < 2: untouched */
  imp_heapsort(v, 2, sizeof *v, item_before, NULL);
  ck_assert(v[0].key == 1 && v[1].key == 2);
}
END_TEST

START_TEST(test_oversized_elements_refused) {
  char big[2][IMP_SORT_MAXSIZE + 1] = {{0}};
  imp_heapsort(big, 2, sizeof big[0], item_before, NULL); /* imp_error: abort */
}
END_TEST

int main(void) {
  Suite* s = suite_create("sort");
  TCase* tc = tcase_create("heapsort");
  tcase_add_test(tc, test_sorted_stable_order_and_permutation);
  tcase_add_test(tc, test_result_independent_of_input_order);
  tcase_add_test(tc, test_small_sizes);
  tcase_add_test_raise_signal(tc, test_oversized_elements_refused, SIGABRT);
  suite_add_tcase(s, tc);
  return imp_test_run_suite(s);
}
