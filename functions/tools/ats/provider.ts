/**
 * The tenant's ATS provider: `ats_default` names it (`provider`), and the
 * provider's module maps the family's shape to its API.
 */
import type { ToolContext } from '../../runtime/context';
import type { SessionOptions } from '../../runtime/http/connector';
import type { AtsProvider } from './family';
import { greenhouse, greenhouseProvider } from './greenhouse';
import { lever, leverProvider } from './lever';
import { ATS_SECRET_FAMILY } from './secret';

/**
 * The provider for one call, chosen by the tenant's secret.
 *
 * @param options - the session's settings (a write's shorter attempts, `writeAttemptTimeoutMs`).
 * @throws SecretInvalidError | SecretNotFoundError from reading `ats_default`.
 */
export async function atsProvider(ctx: ToolContext, options: SessionOptions = {}): Promise<AtsProvider> {
  const secret = await ATS_SECRET_FAMILY.read(ctx);
  return secret.provider === 'greenhouse'
    ? greenhouseProvider(ctx, greenhouse.session(ctx, options))
    : leverProvider(ctx, lever.session(ctx, options));
}
