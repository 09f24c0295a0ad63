/** Whether the process `pid` is alive (a lock's holder): signal 0 checks without sending; EPERM means alive, someone else's. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
