/**
 * `etp` exits as soon as its command is done, with the command's code, even when
 * something still holds the event loop (a request to an endpoint that never
 * answers, whose call was already reported as a timeout). The holder here is a
 * timer preloaded with `--import`, which never ends on its own. The EC2 case
 * also shows an unreachable fan-out failing as a whole; it runs here, in a real
 * process, because under Jest Node's system errors come from another realm and
 * the SDK's retry middleware rewraps them without their `code`.
 */

import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { runEtpProcess } from '../../helpers/etp-process';

/** Preloaded into the child: an interval that would keep it alive for ever. */
const STUCK_TIMER = ['--import', 'data:text/javascript,setInterval(() => {}, 60000)'];

/** Well under the interval: a run that waits for the loop to empty would be killed, code null. */
const RUN_TIMEOUT_MS = 30_000;

/** A loopback URL nothing listens on: connections are refused, as with no route to AWS. */
async function refusingUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('etp with a handle that never ends', () => {
  it(
    'exits 0 with its full output once `tools list` is done',
    async () => {
      // Act
      const outcome = await runEtpProcess(['tools', 'list', '--json'], {
        nodeArgs: STUCK_TIMER,
        timeoutMs: RUN_TIMEOUT_MS,
      });

      // Assess
      expect({ code: outcome.code, stderr: outcome.stderr }).toEqual({ code: 0, stderr: '' });
      const names = (JSON.parse(outcome.stdout) as { name: string }[]).map((tool) => tool.name);
      expect(names).toContain('aws_ec2_inventory');
      expect(names).toContain('slack_post_message');
      expect(outcome.wallMs).toBeLessThan(RUN_TIMEOUT_MS);
    },
    RUN_TIMEOUT_MS + 5_000,
  );

  it(
    'exits 1 with the ok:false result of an EC2 inventory no region of which can be reached',
    async () => {
      // Prepare
      const endpoint = await refusingUrl();

      // Act
      const outcome = await runEtpProcess(
        [
          'tools',
          'invoke',
          'aws_ec2_inventory',
          '--tenant',
          'default',
          '--args',
          '{"regions":["eu-west-1","us-east-1"]}',
        ],
        {
          nodeArgs: STUCK_TIMER,
          timeoutMs: RUN_TIMEOUT_MS,
          env: {
            AWS_ENDPOINT_URL_EC2: endpoint,
            // The embedded store's aws_default: static keys (the AWS docs' example).
            ETP_AWS_DEFAULT: JSON.stringify({
              access_key_id: 'AKIAIOSFODNN7EXAMPLE',
              secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
              region: 'eu-west-1',
            }),
          },
        },
      );

      // Assess
      expect(outcome.code).toBe(1);
      const port = new URL(endpoint).port;
      const regionError = {
        code: 'network_error',
        message: `Could not reach the ec2 endpoint: connect ECONNREFUSED 127.0.0.1:${port}`,
        retryable: true,
        service: 'ec2',
        details: { errno: 'ECONNREFUSED' },
      };
      expect(JSON.parse(outcome.stdout)).toMatchObject({
        ok: false,
        tool: 'aws_ec2_inventory',
        error: {
          code: 'network_error',
          message: `All 2 regions asked failed; first, eu-west-1: Could not reach the ec2 endpoint: connect ECONNREFUSED 127.0.0.1:${port}`,
          retryable: true,
          service: 'ec2',
          details: {
            regions: [
              { region: 'eu-west-1', error: regionError },
              { region: 'us-east-1', error: regionError },
            ],
          },
        },
      });
      expect(outcome.wallMs).toBeLessThan(RUN_TIMEOUT_MS);
    },
    RUN_TIMEOUT_MS + 5_000,
  );
});
