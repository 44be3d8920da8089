/*
 * The pod sandbox's process: holds the namespaces, reaps zombies (it is PID 1 of a pod that shares
 * its PID namespace) and exits at once on SIGTERM or SIGINT. Linked statically (gcc -static) for a
 * scratch image: images/pause/Containerfile.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(int sig) {
  (void)sig;
  _exit(0);
}

static void reap(int sig) {
  (void)sig;
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
}

int main(void) {
  struct sigaction term = {0};
  struct sigaction child = {0};
  term.sa_handler = die;
  sigaction(SIGTERM, &term, NULL);
  sigaction(SIGINT, &term, NULL);
  child.sa_handler = reap;
  child.sa_flags = SA_NOCLDSTOP;
  sigaction(SIGCHLD, &child, NULL);
  for (;;) {
    pause();
  }
  return 0;
}
