// Running ipmitool: execFile (never a shell), a fixed small environment, a hard timeout with
// SIGKILL. The process runner is a port so unit tests can script ipmitool's answers.
import { execFile } from 'node:child_process';

export interface ExecRequest {
  file: string;
  args: readonly string[];
  /** The complete environment of the child (nothing is inherited). */
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
}

export interface ExecResult {
  /** null when the process did not exit on its own (killed, or never started). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Killed because it ran longer than timeoutMs. */
  timedOut: boolean;
  /** The errno code when the process could not be started (ENOENT, EACCES). */
  spawnError?: string;
}

export type IPMIExec = (request: ExecRequest) => Promise<ExecResult>;

const MAX_OUTPUT_BYTES = 1024 * 1024;

interface ExecFileFailure {
  code?: number | string | null;
  killed?: boolean;
  signal?: string | null;
}

function failureResult(error: ExecFileFailure, stdout: string, stderr: string): ExecResult {
  if (typeof error.code === 'string') {
    return { exitCode: null, stdout, stderr, timedOut: false, spawnError: error.code };
  }
  const timedOut = error.killed === true && error.signal === 'SIGKILL';
  return { exitCode: typeof error.code === 'number' ? error.code : null, stdout, stderr, timedOut };
}

/** The production runner: child_process.execFile with SIGKILL on timeout. */
export const execIpmitool: IPMIExec = async (request) =>
  new Promise((resolve) => {
    execFile(
      request.file,
      [...request.args],
      {
        env: { ...request.env },
        timeout: request.timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: MAX_OUTPUT_BYTES,
        encoding: 'utf8',
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        if (error === null) {
          resolve({ exitCode: 0, stdout, stderr, timedOut: false });
          return;
        }
        resolve(failureResult(error, stdout, stderr));
      },
    );
  });
