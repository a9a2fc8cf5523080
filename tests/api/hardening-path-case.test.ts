import { describe, expect, it } from 'vitest';
import { adminToken } from '../../src/core/kernel/crypto.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient, signUpUser } from '../helpers/http.js';

// The routers match paths case-insensitively; the checks that run before their routes must too.
describe("/api/admin whatever the prefix's case", () => {
  const daemon = useTestDaemon();

  it('wants the admin token under /API/ADMIN and /Api/Admin', async () => {
    const { email } = await signUpUser(new TestClient(daemon().url, { origin: daemon().url }));
    const anonymous = new TestClient(daemon().url);
    for (const prefix of ['/API/ADMIN', '/Api/Admin', '/api/ADMIN']) {
      const mails = await anonymous.get(`${prefix}/mails`);
      expect(mails.status, prefix).toBe(401);
      expect(mails.json, prefix).toEqual({ message: 'Unauthorized', code: 'UNAUTHORIZED' });
      const setPassword = await anonymous.post(`${prefix}/set-password`, { email, newPassword: 'attacker chosen pw' });
      expect(setPassword.status, prefix).toBe(401);
    }
    const admin = new TestClient(daemon().url, {
      headers: { authorization: `Bearer ${adminToken(daemon().config.secret)}` },
    });
    expect((await admin.get('/API/ADMIN/mails')).status).toBe(200);
  });
});

describe("/v1 errors whatever the prefix's case", () => {
  const daemon = useTestDaemon();

  it("are in Polar's shape under /V1", async () => {
    const response = await new TestClient(daemon().url).get('/V1/products/');
    expect(response.status).toBe(401);
    expect(response.json.error).toBeDefined();
    expect(response.json.detail).toBeDefined();
  });
});
