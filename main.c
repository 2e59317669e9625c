/* placeholder: the driver is being written */
int main(void) { return 0; }
