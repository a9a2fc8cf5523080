import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient, uniqueEmail } from '../helpers/http.js';

describe('rate limits whatever the path\'s case', () => {
  const daemon = useTestDaemon({ rateLimit: true });

  it('counts /SIGN-IN/EMAIL and its case variants against the strict sign-in rule, in one counter', async () => {
    const client = new TestClient(daemon().url);
    const body = { email: uniqueEmail(), password: 'wrong password!' };
    const statuses: number[] = [];
    for (const path of ['/api/auth/SIGN-IN/EMAIL', '/api/auth/Sign-In/Email', '/api/auth/sign-in/email', '/api/auth/SIGN-IN/email']) {
      statuses.push((await client.post(path, body)).status);
    }
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses[3]).toBe(429);
  });

  it('applies the mail rule to /REQUEST-PASSWORD-RESET', async () => {
    const client = new TestClient(daemon().url);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await client.post('/api/auth/REQUEST-PASSWORD-RESET', { email: uniqueEmail(), redirectTo: '/reset' })).status);
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses[3]).toBe(429);
  });
});
