/**
 * STS, Secrets Manager and a DynamoDB gate on 127.0.0.1, with the platform's IAM
 * decisions emulated, so a real deployed tool handler (tenant reader sessions,
 * scoped clients, customer sessions) runs end to end:
 *
 * - STS `AssumeRole` (Query protocol, STS API reference, "AssumeRole") issues a
 *   distinct fake key per session and records the session's role, tags, source
 *   identity and the rest of the request;
 * - Secrets Manager (JSON 1.1: GetSecretValue, DescribeSecret, TagResource)
 *   answers GetSecretValue to a reader session only for a secret tagged with the
 *   session's tenant and the secret name its reader role serves — what the
 *   synthesized reader policy allows (test/infra/tenant-isolation.test.ts proves
 *   that policy with a simulator; this emulates it for runtime tests);
 * - a DynamoDB gate in front of dynalite answers GetItem to a reader session only
 *   when the partition key is the session's tenant (`dynamodb:LeadingKeys`).
 *
 * A request signed by a key no session issued (the operator's CLI) is allowed.
 */

import type { ServerResponse } from 'node:http';
import { request as httpRequest } from 'node:http';
import { listenOnLoopback, type ReceivedRequest, sendJson } from './loopback-server';

/** An STS session the local STS issued. */
export interface LocalSession {
  readonly accessKeyId: string;
  readonly roleArn: string;
  readonly roleSessionName: string;
  readonly durationSeconds: number;
  readonly externalId?: string;
  readonly sourceIdentity?: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly transitiveTagKeys: readonly string[];
  /** The region the AssumeRole request was signed for (STS's region). */
  readonly stsRegion: string;
  /** The key that signed the AssumeRole request (the caller). */
  readonly callerKey: string;
}

/** The access key id a SigV4 request was signed with. */
export function signingKeyOf(request: ReceivedRequest): string {
  return /Credential=([^/\s]+)\//.exec(String(request.headers.authorization ?? ''))?.[1] ?? '';
}

function form(body: string): URLSearchParams {
  return new URLSearchParams(body);
}

/** A running local STS. */
export interface LocalSts {
  readonly endpoint: string;
  /** Every session issued, in order. */
  readonly sessions: LocalSession[];
  /** The session a key belongs to. */
  sessionOf(accessKeyId: string): LocalSession | undefined;
  /** Makes the next AssumeRole calls fail with this AWS error code (`AccessDenied`). */
  failNext(code: string | undefined): void;
  stop(): Promise<void>;
}

/** Starts the local STS. Every session expires one hour after it is issued. */
export async function startLocalSts(): Promise<LocalSts> {
  const sessions: LocalSession[] = [];
  let failure: string | undefined;
  const server = await listenOnLoopback((request, response) => {
    const params = form(request.body);
    if (params.get('Action') !== 'AssumeRole') {
      response.writeHead(400, { 'content-type': 'text/xml' });
      response.end('<ErrorResponse><Error><Code>InvalidAction</Code></Error></ErrorResponse>');
      return;
    }
    if (failure) {
      response.writeHead(403, { 'content-type': 'text/xml' });
      response.end(
        `<ErrorResponse><Error><Type>Sender</Type><Code>${failure}</Code><Message>refused</Message></Error><RequestId>r</RequestId></ErrorResponse>`,
      );
      return;
    }
    const tags: Record<string, string> = {};
    for (let i = 1; params.has(`Tags.member.${i}.Key`); i++) {
      tags[params.get(`Tags.member.${i}.Key`) as string] = params.get(`Tags.member.${i}.Value`) ?? '';
    }
    const transitive: string[] = [];
    for (let i = 1; params.has(`TransitiveTagKeys.member.${i}`); i++)
      transitive.push(params.get(`TransitiveTagKeys.member.${i}`) as string);
    const accessKeyId = `ASIALOCALSTS${String(sessions.length + 1).padStart(8, '0')}`;
    sessions.push({
      accessKeyId,
      roleArn: params.get('RoleArn') ?? '',
      roleSessionName: params.get('RoleSessionName') ?? '',
      durationSeconds: Number(params.get('DurationSeconds') ?? 3600),
      ...(params.get('ExternalId') ? { externalId: params.get('ExternalId') as string } : {}),
      ...(params.get('SourceIdentity') ? { sourceIdentity: params.get('SourceIdentity') as string } : {}),
      tags,
      transitiveTagKeys: transitive,
      stsRegion:
        /Credential=[^/\s]+\/\d+\/([a-z0-9-]+)\/sts\//.exec(
          String(request.headers.authorization ?? ''),
        )?.[1] ?? '?',
      callerKey: signingKeyOf(request),
    });
    const expiration = new Date(Date.now() + 3_600_000).toISOString();
    response.writeHead(200, { 'content-type': 'text/xml' });
    response.end(
      '<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult>' +
        `<Credentials><AccessKeyId>${accessKeyId}</AccessKeyId>` +
        `<SecretAccessKey>localstsfakesecret${sessions.length}</SecretAccessKey>` +
        `<SessionToken>localstsfaketoken${sessions.length}</SessionToken>` +
        `<Expiration>${expiration}</Expiration></Credentials>` +
        `<AssumedRoleUser><Arn>${params.get('RoleArn')}/x</Arn><AssumedRoleId>AROALOCAL:x</AssumedRoleId></AssumedRoleUser>` +
        '</AssumeRoleResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></AssumeRoleResponse>',
    );
  });
  return {
    endpoint: server.url,
    sessions,
    sessionOf: (key) => sessions.find((session) => session.accessKeyId === key),
    failNext: (code) => {
      failure = code;
    },
    stop: () => server.stop(),
  };
}

/** One secret of the local Secrets Manager. */
export interface LocalSecret {
  readonly arn: string;
  readonly name: string;
  value: string;
  tags: Record<string, string>;
  kmsKeyId?: string;
}

/** A call the local Secrets Manager received. */
export interface SecretsManagerCall {
  readonly operation: string;
  readonly secretId: string;
  readonly accessKeyId: string;
  readonly allowed: boolean;
}

/** A running local Secrets Manager. */
export interface LocalSecretsManager {
  readonly endpoint: string;
  readonly calls: SecretsManagerCall[];
  /** Creates a secret (`etp/<tenant>/<name>` conventionally) and returns it. */
  create(name: string, value: string, tags?: Record<string, string>, account?: string): LocalSecret;
  get(arn: string): LocalSecret | undefined;
  stop(): Promise<void>;
}

/**
 * Starts the local Secrets Manager in `region`.
 *
 * @param readerSecretOf - the secret name a reader role serves, by role ARN
 *   (undefined: not a reader role, GetSecretValue refused to its sessions).
 */
export async function startLocalSecretsManager(
  sts: LocalSts,
  readerSecretOf: (roleArn: string) => string | undefined,
  region = 'eu-west-1',
): Promise<LocalSecretsManager> {
  const secrets = new Map<string, LocalSecret>();
  const calls: SecretsManagerCall[] = [];
  let counter = 0;
  const find = (id: string) => secrets.get(id) ?? [...secrets.values()].find((s) => s.name === id);
  const denied = (response: ServerResponse, message: string) =>
    sendJson(
      response,
      400,
      { __type: 'AccessDeniedException', message },
      { 'content-type': 'application/x-amz-json-1.1' },
    );
  const server = await listenOnLoopback((request, response) => {
    const operation =
      String(request.headers['x-amz-target'] ?? '')
        .split('.')
        .pop() ?? '';
    const input = JSON.parse(request.body || '{}') as {
      SecretId?: string;
      Tags?: { Key: string; Value: string }[];
    };
    const key = signingKeyOf(request);
    const session = sts.sessionOf(key);
    const secret = find(input.SecretId ?? '');
    let allowed = true;
    if (session && operation === 'GetSecretValue') {
      const serves = readerSecretOf(session.roleArn);
      allowed =
        secret !== undefined &&
        serves !== undefined &&
        secret.name.startsWith('etp/') &&
        secret.tags['etp-tenant'] === session.tags['etp-tenant'] &&
        secret.tags['etp-secret'] === serves;
    } else if (session) {
      allowed = false; // reader sessions may only GetSecretValue
    }
    calls.push({ operation, secretId: input.SecretId ?? '', accessKeyId: key, allowed });
    if (!allowed) return denied(response, `User is not authorized to perform: secretsmanager:${operation}`);
    if (!secret) {
      return sendJson(
        response,
        400,
        { __type: 'ResourceNotFoundException', message: 'Secrets Manager can’t find the specified secret.' },
        { 'content-type': 'application/x-amz-json-1.1' },
      );
    }
    const headers = { 'content-type': 'application/x-amz-json-1.1' };
    switch (operation) {
      case 'GetSecretValue':
        return sendJson(
          response,
          200,
          {
            ARN: secret.arn,
            Name: secret.name,
            SecretString: secret.value,
            VersionId: 'v1',
            VersionStages: ['AWSCURRENT'],
            CreatedDate: 1714521600,
          },
          headers,
        );
      case 'DescribeSecret':
        return sendJson(
          response,
          200,
          {
            ARN: secret.arn,
            Name: secret.name,
            ...(secret.kmsKeyId ? { KmsKeyId: secret.kmsKeyId } : {}),
            Tags: Object.entries(secret.tags).map(([Key, Value]) => ({ Key, Value })),
          },
          headers,
        );
      case 'TagResource':
        for (const tag of input.Tags ?? []) secret.tags[tag.Key] = tag.Value;
        return sendJson(response, 200, {}, headers);
      default:
        return sendJson(response, 400, { __type: 'InvalidRequestException', message: operation }, headers);
    }
  });
  return {
    endpoint: server.url,
    calls,
    create(name, value, tags = {}, account = '123456789012') {
      counter++;
      const suffix = `Ab${String(counter).padStart(4, '0')}`;
      const arn = `arn:aws:secretsmanager:${region}:${account}:secret:${name}-${suffix}`;
      const secret: LocalSecret = { arn, name, value, tags: { ...tags } };
      secrets.set(arn, secret);
      return secret;
    },
    get: (arn) => secrets.get(arn),
    stop: () => server.stop(),
  };
}

/** A GetItem the gate saw. */
export interface GateCall {
  readonly operation: string;
  readonly tenant?: string;
  readonly accessKeyId: string;
  readonly allowed: boolean;
}

/** A running DynamoDB gate. */
export interface LocalDynamoGate {
  readonly endpoint: string;
  readonly calls: GateCall[];
  stop(): Promise<void>;
}

/** The item operations of an exactly-once records session (lib/tenant-secret-readers.ts, TenantIdempotencyRecords). */
const RECORD_OPERATIONS = new Set(['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem']);

/**
 * Starts a gate in front of `target` (dynalite): a reader session may only
 * GetItem rows whose partition key is its tenant; a session of `recordsRoleArn`
 * (the exactly-once records role) may only read and write items whose `id`
 * starts with `<its tenant>#`; requests of no session are forwarded.
 */
export async function startDynamoGate(
  target: string,
  sts: LocalSts,
  recordsRoleArn?: string,
): Promise<LocalDynamoGate> {
  const calls: GateCall[] = [];
  const server = await listenOnLoopback(async (request, response) => {
    const operation =
      String(request.headers['x-amz-target'] ?? '')
        .split('.')
        .pop() ?? '';
    const key = signingKeyOf(request);
    const session = sts.sessionOf(key);
    const body = JSON.parse(request.body || '{}') as {
      Key?: { tenant_id?: { S?: string }; id?: { S?: string } };
      Item?: { id?: { S?: string } };
    };
    const tenant = body.Key?.tenant_id?.S;
    const recordId = body.Key?.id?.S ?? body.Item?.id?.S;
    const own = session?.tags['etp-tenant'];
    const allowed = !session
      ? true
      : session.roleArn === recordsRoleArn
        ? RECORD_OPERATIONS.has(operation) && recordId?.startsWith(`${own}#`) === true
        : operation === 'GetItem' && tenant !== undefined && tenant === own;
    calls.push({ operation, tenant, accessKeyId: key, allowed });
    if (!allowed) {
      return sendJson(
        response,
        400,
        {
          __type: 'com.amazon.coral.service#AccessDeniedException',
          message: `not authorized to perform: dynamodb:${operation}`,
        },
        { 'content-type': 'application/x-amz-json-1.0' },
      );
    }
    await new Promise<void>((resolve, reject) => {
      const url = new URL(target);
      const forward = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          method: request.method,
          path: request.path,
          headers: request.headers,
          // A fresh connection per forwarded request: no reuse of one dynalite is closing.
          agent: false,
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 500, answer.headers);
          answer.pipe(response);
          answer.on('end', resolve);
        },
      );
      forward.on('error', reject);
      forward.end(request.body);
    });
  });
  return { endpoint: server.url, calls, stop: () => server.stop() };
}
