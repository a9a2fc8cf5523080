import { createHash, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import bcrypt from 'bcryptjs';

/**
 * Password hashing with bcrypt, off the event loop.
 *
 * bcrypt reads at most 72 bytes, so two long passwords sharing their first 72 bytes would collide. Every password
 * is therefore pre-hashed with SHA-384 (64 base64 characters, no NUL bytes) before bcrypt; the stored value is
 * tagged so the scheme can change later. Better Auth's scrypt hashes (`<salt hex>:<key hex>`) are also verified,
 * so users imported from a Better Auth database keep their passwords.
 */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
  close(): Promise<void>;
}

const SCHEME = 'bcrypt-sha384$';
const BETTER_AUTH_SCRYPT = /^[0-9a-f]{32}:[0-9a-f]{128}$/;

function prehash(password: string): string {
  return createHash('sha384').update(password, 'utf8').digest('base64');
}

// The worker is plain CommonJS evaluated from a string so it runs the same from TypeScript sources (tests) and
// from the compiled build; bcryptjs is loaded from the path the main thread resolved.
// Each worker lowers its own thread's scheduling priority: on a machine with as many busy hash workers as cores,
// the event loop still gets the CPU first, so session checks stay fast while sign-ins queue (bench/auth).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
try { require('node:os').setPriority(0, 10); } catch {}
const bcrypt = require(workerData.bcryptPath);
parentPort.on('message', (job) => {
  try {
    const result = job.op === 'hash' ? bcrypt.hashSync(job.input, job.cost) : bcrypt.compareSync(job.input, job.hash);
    parentPort.postMessage({ id: job.id, result });
  } catch (error) {
    parentPort.postMessage({ id: job.id, error: String((error && error.message) || error) });
  }
});
`;

interface Job {
  id: number;
  op: 'hash' | 'compare';
  input: string;
  cost?: number;
  hash?: string;
  resolve: (value: string | boolean) => void;
  reject: (error: Error) => void;
}

class WorkerPool {
  private readonly idle: Worker[] = [];
  private readonly all: Worker[] = [];
  private readonly queue: Job[] = [];
  private readonly running = new Map<Worker, Job>();
  private nextId = 1;
  private closed = false;

  private bcryptPath: string | null = null;

  // Workers start on the first hash, not with the daemon: each costs ~10 MB that an idle daemon need not hold.
  constructor(private readonly size: number) {}

  private start(): void {
    this.bcryptPath = createRequire(import.meta.url).resolve('bcryptjs');
    for (let i = 0; i < this.size; i++) this.spawn(this.bcryptPath);
  }

  private spawn(bcryptPath: string): void {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bcryptPath } });
    worker.unref();
    worker.on('message', (message: { id: number; result?: string | boolean; error?: string }) => {
      const job = this.running.get(worker);
      this.running.delete(worker);
      if (job) {
        if (message.error !== undefined) job.reject(new Error(message.error));
        else job.resolve(message.result!);
      }
      this.idle.push(worker);
      this.drain();
    });
    worker.on('error', (error) => {
      const job = this.running.get(worker);
      this.running.delete(worker);
      job?.reject(error);
      const index = this.all.indexOf(worker);
      if (index >= 0) this.all.splice(index, 1);
      if (!this.closed) this.spawn(bcryptPath);
    });
    this.all.push(worker);
    this.idle.push(worker);
    this.drain();
  }

  run(job: Omit<Job, 'id' | 'resolve' | 'reject'>): Promise<string | boolean> {
    if (this.closed) return Promise.reject(new Error('password hasher is closed'));
    if (this.bcryptPath === null) this.start();
    return new Promise((resolve, reject) => {
      this.queue.push({ ...job, id: this.nextId++, resolve, reject });
      this.drain();
    });
  }

  private drain(): void {
    while (this.idle.length > 0 && this.queue.length > 0) {
      const worker = this.idle.pop()!;
      const job = this.queue.shift()!;
      this.running.set(worker, job);
      worker.postMessage({ id: job.id, op: job.op, input: job.input, cost: job.cost, hash: job.hash });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('password hasher is closed'));
    await Promise.all(this.all.map((worker) => worker.terminate()));
  }
}

function scrypt(password: string, salt: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(
      password.normalize('NFKC'),
      salt,
      64,
      { N: 16384, r: 16, p: 1, maxmem: 128 * 16384 * 16 * 2 },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

export function createPasswordHasher(options: { cost: number; workers: number }): PasswordHasher {
  const pool = options.workers > 0 ? new WorkerPool(options.workers) : null;

  const bcryptHash = (input: string): Promise<string> =>
    pool ? (pool.run({ op: 'hash', input, cost: options.cost }) as Promise<string>) : bcrypt.hash(input, options.cost);
  const bcryptCompare = (input: string, hash: string): Promise<boolean> =>
    pool ? (pool.run({ op: 'compare', input, hash }) as Promise<boolean>) : bcrypt.compare(input, hash);

  return {
    async hash(password) {
      return SCHEME + (await bcryptHash(prehash(password)));
    },
    async verify(password, stored) {
      if (stored.startsWith(SCHEME)) return bcryptCompare(prehash(password), stored.slice(SCHEME.length));
      if (BETTER_AUTH_SCRYPT.test(stored)) {
        const [salt, key] = stored.split(':') as [string, string];
        return timingSafeEqual(await scrypt(password, salt), Buffer.from(key, 'hex'));
      }
      return false;
    },
    async close() {
      await pool?.close();
    },
  };
}
