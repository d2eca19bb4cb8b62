import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { call, waitFor } from '@postbus/testing';
import { projectCall } from '../project-api';
import type { DemoClient, RunningSystem } from '../system';

/** What the SDK tours of the compatible APIs (Postmark's, Resend's) share. */

/** A new key of the client bound to its project: what an SDK that sends one key alone is given. */
export async function projectKey(system: RunningSystem, client: DemoClient, scope: 'full' | 'sdk', name: string): Promise<string> {
  const made = await call(system.gatewayUrl, 'POST', '/v1/keys', {
    auth: client.auth,
    json: { name, scope, project_id: client.projectId },
  });
  if (made.status !== 201) throw new Error(`making the key failed: ${made.status} ${made.text}`);
  return made.body.api_key as string;
}

/** Suppresses an address in the client's project, and waits until the mailer has it. */
export async function suppressInProject(system: RunningSystem, client: DemoClient, email: string): Promise<void> {
  const made = await projectCall(system, client, 'POST', '/suppressions', { email, reason: 'manual' });
  if (made.status !== 200) throw new Error(`suppressing ${email} failed: ${made.status} ${made.text}`);
  await waitFor(
    async () => {
      const listed = await projectCall(system, client, 'GET', `/suppressions?email=${encodeURIComponent(email)}`);
      return listed.body.data?.length === 1 ? true : undefined;
    },
    { timeoutMs: 30_000, what: `${email} suppressed` },
  );
}

/**
 * Runs a Python tour (a script beside this file) with `spec` as JSON on its stdin; its last line
 * of output is its outcome, as JSON.
 */
export function runPythonTour(
  python: string,
  script: string,
  spec: unknown,
  env: Record<string, string> = {},
): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      python,
      [join(__dirname, script)],
      { timeout: 120_000, env: { ...process.env, ...env } },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${script} failed: ${stderr || error.message}`));
        resolve(JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, any>);
      },
    );
    child.stdin!.end(JSON.stringify(spec));
  });
}
