import { Readable } from 'node:stream';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { HttpHandlerOptions } from '@smithy/types';
import { checkAnswer, isCheckedAnswer } from './answer-check';
import { AWS_HTTP_TIMEOUTS, type AwsHttpTimeouts, awsRequestHandler } from './http-timeouts';

/** Reads a response body stream in full. */
async function readBody(body: unknown): Promise<Buffer> {
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (body === undefined || body === null) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Buffer | string>) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The HTTP handler of one call's AWS clients: the platform's timeouts
 * (`awsRequestHandler`), and every request aborted when the call's hard stop
 * fires, whether or not the code that sent it passed an `abortSignal` of its own.
 *
 * It also checks every success answer before the SDK reads it (`checkAnswer`): an
 * empty body, an HTML page or an answer without data fails the request with
 * `upstream_error` instead of becoming an output with no list — "0 instances".
 *
 * Why a handler and not an `abortSignal` at each `send`: the hard stop must reach
 * every request of the call — every `send`, every page of every paginator, the
 * SDK's own retries — and a handler on the client cannot be forgotten at one call
 * site. Without it, a request cut at the deadline ran on in the background of a
 * warm container (issue 6).
 *
 * @example
 * const ec2 = new EC2Client({ region, requestHandler: new CallBoundRequestHandler(ctx.signal) });
 */
export class CallBoundRequestHandler extends NodeHttpHandler {
  /**
   * @param hardStop - aborted when the call must stop (ToolContext `signal`).
   * @param timeouts - @default AWS_HTTP_TIMEOUTS
   */
  constructor(
    private readonly hardStop: AbortSignal,
    timeouts: AwsHttpTimeouts = AWS_HTTP_TIMEOUTS,
  ) {
    super(awsRequestHandler(timeouts));
  }

  override async handle(request: Parameters<NodeHttpHandler['handle']>[0], options: HttpHandlerOptions = {}) {
    const own = options.abortSignal as AbortSignal | undefined;
    const abortSignal = own ? AbortSignal.any([own, this.hardStop]) : this.hardStop;
    const answer = await super.handle(request, {
      ...options,
      abortSignal: abortSignal as HttpHandlerOptions['abortSignal'],
    });
    if (!isCheckedAnswer(request, answer.response)) return answer;
    // API answers are small documents the SDK reads whole anyway; read here, checked, handed on.
    const body = await readBody(answer.response.body);
    checkAnswer(request, answer.response, body);
    answer.response.body = Readable.from([body]);
    return answer;
  }
}
