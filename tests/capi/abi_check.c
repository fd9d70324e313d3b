/* capi_abi_check: zkwire's zookeeper.h against Debian's, fact by fact (abi_table.c). Exits 1 listing every line
 * that differs, 0 when both headers describe the same ABI. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void abi_debian(FILE* out);
void abi_zkwire(FILE* out);

static char* table(void (*fn)(FILE*), size_t* size) {
  char* text = NULL;
  FILE* out = open_memstream(&text, size);
  if (out == NULL) exit(2);
  fn(out);
  fclose(out);
  return text;
}

int main(void) {
  size_t debian_size = 0;
  size_t zkwire_size = 0;
  char* debian = table(abi_debian, &debian_size);
  char* zkwire = table(abi_zkwire, &zkwire_size);
  int differences = 0;
  int lines = 0;
  char* d_save = NULL;
  char* z_save = NULL;
  char* d = strtok_r(debian, "\n", &d_save);
  char* z = strtok_r(zkwire, "\n", &z_save);
  while (d != NULL || z != NULL) {
    lines++;
    if (d == NULL || z == NULL || strcmp(d, z) != 0) {
      printf("Debian: %s\nzkwire: %s\n", d != NULL ? d : "(none)", z != NULL ? z : "(none)");
      differences++;
    }
    d = d != NULL ? strtok_r(NULL, "\n", &d_save) : NULL;
    z = z != NULL ? strtok_r(NULL, "\n", &z_save) : NULL;
  }
  printf("%d facts compared, %d differ\n", lines, differences);
  free(debian);
  free(zkwire);
  return differences == 0 && lines > 300 ? 0 : 1;
}
