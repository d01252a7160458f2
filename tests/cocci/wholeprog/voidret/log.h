void log_note(const char *what);
long log_count(void);
void *log_get_lock(void);
