import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { HttpHandlerOptions } from '@smithy/types';
import { AWS_HTTP_TIMEOUTS, type AwsHttpTimeouts, awsRequestHandler } from './http-timeouts';

/**
 * The HTTP handler of one call's AWS clients: the platform's timeouts
 * (`awsRequestHandler`), and every request aborted when the call's hard stop
 * fires, whether or not the code that sent it passed an `abortSignal` of its own.
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

  override handle(request: Parameters<NodeHttpHandler['handle']>[0], options: HttpHandlerOptions = {}) {
    const own = options.abortSignal as AbortSignal | undefined;
    const abortSignal = own ? AbortSignal.any([own, this.hardStop]) : this.hardStop;
    return super.handle(request, {
      ...options,
      abortSignal: abortSignal as HttpHandlerOptions['abortSignal'],
    });
  }
}
