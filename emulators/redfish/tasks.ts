// Task monitors for actions that answer 202 (system option asyncTasks): the monitor answers 202
// with a running Task `polls` times, then 200 with the finished Task (Completed, or Exception
// when the system is configured to fail its tasks, in which case the action had no effect).
import type { Json, Reply } from './replies.js';
import { V1, link } from './render.js';
import type { AsyncTaskConfig } from './types.js';

interface TaskEntry {
  readonly id: string;
  remaining: number;
  readonly fail: boolean;
  readonly action: string;
}

export class TaskService {
  private readonly tasks = new Map<string, TaskEntry>();
  private nextId = 1;

  /** Applies the action unless the task is to fail, and answers 202 with the monitor. */
  start(config: AsyncTaskConfig, action: string, apply: () => void): Reply {
    const fail = config.fail === true;
    if (!fail) {
      apply();
    }
    const id = String(this.nextId);
    this.nextId += 1;
    this.tasks.set(id, { id, remaining: config.polls, fail, action });
    return {
      status: 202,
      headers: { location: `${V1}/TaskService/TaskMonitors/${id}`, 'retry-after': '1' },
      body: this.taskBody(id, 'Running'),
    };
  }

  monitor(id: string): Reply | undefined {
    const task = this.tasks.get(id);
    if (task === undefined) {
      return undefined;
    }
    if (task.remaining > 0) {
      task.remaining -= 1;
      return { status: 202, headers: { location: `${V1}/TaskService/TaskMonitors/${id}`, 'retry-after': '1' }, body: this.taskBody(id, 'Running') };
    }
    return { status: 200, body: this.taskBody(id, task.fail ? 'Exception' : 'Completed') };
  }

  task(id: string): Reply | undefined {
    const task = this.tasks.get(id);
    if (task === undefined) {
      return undefined;
    }
    const finished = task.remaining === 0;
    return { status: 200, body: this.taskBody(id, finished ? (task.fail ? 'Exception' : 'Completed') : 'Running') };
  }

  ids(): string[] {
    return [...this.tasks.keys()];
  }

  private taskBody(id: string, state: 'Running' | 'Completed' | 'Exception'): Json {
    const failed = state === 'Exception';
    const action = this.tasks.get(id)?.action ?? 'action';
    return {
      '@odata.id': `${V1}/TaskService/Tasks/${id}`,
      '@odata.type': '#Task.v1_5_1.Task',
      Id: id,
      Name: `Task ${id}`,
      TaskState: state,
      TaskStatus: failed ? 'Critical' : 'OK',
      TaskMonitor: `${V1}/TaskService/TaskMonitors/${id}`,
      Messages: failed ? [{ MessageId: 'Base.1.8.InternalError', Message: `The emulated ${action} task failed.` }] : [],
      Links: { Self: link(`${V1}/TaskService/Tasks/${id}`) },
    };
  }
}
