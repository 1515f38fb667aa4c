import type { AwsAccess } from '../../../../functions/runtime/aws/credentials';
import { defaultSnapshotClients } from '../../../../functions/tools/snapshots/clients';

describe('defaultSnapshotClients', () => {
  it('reads inventory files without the SDK re-checking each body against S3’s stored checksum (the MD5 of the manifest is checked)', async () => {
    const access: AwsAccess = {
      mode: 'static',
      region: 'eu-west-1',
      credentials: async () => ({
        accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
        secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      }),
    };

    const s3 = defaultSnapshotClients.s3(access, 'eu-west-1');

    expect(await s3.config.responseChecksumValidation()).toBe('WHEN_REQUIRED');
    expect(await s3.config.region()).toBe('eu-west-1');
    s3.destroy();
  });
});
