// Readiness for `GET /readyz`: ready once listening, not ready again from the moment shutdown
// starts, so Kubernetes stops routing new hook calls here while in-flight ones finish.

export type ReadinessState = 'starting' | 'ready' | 'shutting-down';

export interface Readiness {
  state(): ReadinessState;
  isReady(): boolean;
  markListening(): void;
  markShuttingDown(): void;
}

export function createReadiness(initial: ReadinessState = 'starting'): Readiness {
  let current = initial;
  return {
    state: () => current,
    isReady: () => current === 'ready',
    markListening: () => {
      if (current === 'starting') current = 'ready';
    },
    markShuttingDown: () => {
      current = 'shutting-down';
    },
  };
}
