import { Worker } from 'node:worker_threads';

/** One request of a flood: its bytes are one of the flood's named bodies. */
export interface FloodRequest {
  kind: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What a flood's request got: its status (0 for no answer) and, for a batch, how many of its items were accepted. */
export interface FloodAnswer {
  kind: string;
  status: number;
  accepted: number;
}

// Plain JavaScript: the worker runs outside Jest's transform.
const FLOOD_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { bodies, requests } = workerData;
const acceptedOf = (status, answer) =>
  status !== 200 ? 0 : Array.isArray(answer.data) ? answer.data.filter((item) => item.status === 'accepted').length : 1;
Promise.all(
  requests.map((r) =>
    fetch(r.url, { method: 'POST', headers: r.headers, body: bodies[r.body] }).then(
      async (res) => {
        const answer = await res.json().catch(() => ({}));
        return { kind: r.kind, status: res.status, accepted: acceptedOf(res.status, answer) };
      },
      () => ({ kind: r.kind, status: 0, accepted: 0 }),
    ),
  ),
).then((answers) => parentPort.postMessage(answers));
`;

/**
 * Fires a flood's requests all at once from a thread of its own, so that encoding and writing its
 * bodies never holds up the test's own event loop: a latency the test measures beside the flood is
 * the server's, not this process's. `bodies` are encoded once and shared by the requests that name them.
 */
export function floodFromAnotherThread(bodies: Record<string, string>, requests: FloodRequest[]): Promise<FloodAnswer[]> {
  const encoded = Object.fromEntries(Object.entries(bodies).map(([name, text]) => [name, Buffer.from(text)]));
  const worker = new Worker(FLOOD_WORKER, { eval: true, workerData: { bodies: encoded, requests } });
  return new Promise<FloodAnswer[]>((resolve, reject) => {
    worker.once('message', (answers: FloodAnswer[]) => {
      resolve(answers);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the flood's thread exited (${code}) before it answered`)));
  });
}
