/**
 * The CRM and ATS credentials are redacted wherever they appear: HubSpot's
 * private app tokens by their format (every data-center region), Attio's bearer
 * tokens and the Basic credentials of Greenhouse and Lever by their HTTP scheme,
 * in headers of any case, URLs, error text and JSON.
 */
import { redact } from '../../../functions/runtime/redact';
import { ATTIO_TOKEN } from '../../helpers/attio-server';
import { GREENHOUSE_KEY } from '../../helpers/greenhouse-server';
import { HUBSPOT_TOKEN } from '../../helpers/hubspot-server';
import { LEVER_KEY } from '../../helpers/lever-server';

const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`;

describe('vendor family credentials', () => {
  it.each(['na1', 'na2', 'eu1', 'ap1'])(
    'masks a HubSpot private app token of region %s in free text',
    (region) => {
      const token = HUBSPOT_TOKEN.replace('na1', region);

      const text = redact(`HubSpot refused ${token} for portal 123`) as string;

      expect(text).not.toContain(token);
      expect(text).toContain('portal 123');
    },
  );

  it.each([
    ['authorization', `Bearer ${ATTIO_TOKEN}`, ATTIO_TOKEN],
    ['Authorization', basic(GREENHOUSE_KEY), Buffer.from(`${GREENHOUSE_KEY}:`).toString('base64')],
    ['AUTHORIZATION', basic(LEVER_KEY), Buffer.from(`${LEVER_KEY}:`).toString('base64')],
  ])('masks the %s header of each scheme, in text and in JSON', (header, value, secret) => {
    const inText = redact(`request failed: ${header}: ${value}`) as string;
    const inJson = redact({ request: { headers: { [header]: value } }, note: `sent ${value}` }) as Record<
      string,
      unknown
    >;

    expect(inText).not.toContain(secret);
    expect(JSON.stringify(inJson)).not.toContain(secret);
  });

  it('masks a token under a sensitive key and in a URL', () => {
    const value = redact({
      token: ATTIO_TOKEN,
      url: `https://user:${LEVER_KEY}@api.lever.co/v1/opportunities`,
    });

    expect(JSON.stringify(value)).not.toContain(ATTIO_TOKEN);
    expect(JSON.stringify(value)).not.toContain(LEVER_KEY);
  });
});
