import { CHECK_CONTROLS, CIS_VERSION, controlsFor } from '../../../../../functions/tools/aws/shared/controls';

describe('controlsFor()', () => {
  it('maps a check to its Security Hub controls and CIS recommendations', () => {
    expect(CIS_VERSION).toBe('3.0.0');
    expect(controlsFor('s3_bucket_block_public_access_off')).toEqual({
      securityHub: ['S3.8'],
      cis: ['2.1.4'],
    });
    expect(controlsFor('iam_root_mfa_disabled')).toEqual({
      securityHub: ['IAM.9', 'IAM.6'],
      cis: ['1.5', '1.6'],
    });
    expect(controlsFor('cloudtrail_log_file_validation_disabled')).toEqual({
      securityHub: ['CloudTrail.4'],
      cis: ['3.2'],
    });
  });

  it('maps nothing for checks no control covers, and for unknown or inherited names', () => {
    expect(controlsFor('nat_gateway_idle')).toBeUndefined();
    expect(controlsFor('compute_optimizer_ec2_overprovisioned')).toBeUndefined();
    expect(controlsFor('constructor')).toBeUndefined();
  });

  it('applies age thresholds: IAM.22/CIS 1.12 past 45 days, IAM.8 past 90', () => {
    expect(controlsFor('iam_user_key_unused', { unusedDays: 30 })).toBeUndefined();
    expect(controlsFor('iam_user_key_unused', { unusedDays: 60 })).toEqual({
      securityHub: ['IAM.22'],
      cis: ['1.12'],
    });
    expect(controlsFor('iam_user_key_unused', { unusedDays: 120 })).toEqual({
      securityHub: ['IAM.8', 'IAM.22'],
      cis: ['1.12'],
    });
    expect(controlsFor('iam_user_key_not_rotated', { ageDays: 60 })).toBeUndefined();
    expect(controlsFor('iam_user_key_not_rotated', { ageDays: 91 })).toEqual({
      securityHub: ['IAM.3'],
      cis: ['1.14'],
    });
  });

  it('maps an all-traffic IPv4 rule to every port control and CIS 5.2', () => {
    expect(
      controlsFor('sg_open_all_ports', {
        protocol: 'all',
        fromPort: null,
        toPort: null,
        openTo: ['0.0.0.0/0'],
      }),
    ).toEqual({
      securityHub: ['EC2.18', 'EC2.19', 'EC2.13', 'EC2.14', 'EC2.53'],
      cis: ['5.2'],
    });
  });

  it('maps an IPv6 SSH rule to EC2.54 and CIS 5.3, a web-only rule to nothing', () => {
    expect(
      controlsFor('sg_open_sensitive_port', { protocol: 'tcp', fromPort: 22, toPort: 22, openTo: ['::/0'] }),
    ).toEqual({
      securityHub: ['EC2.18', 'EC2.19', 'EC2.13', 'EC2.54'],
      cis: ['5.3'],
    });
    expect(
      controlsFor('sg_open_port', { protocol: 'tcp', fromPort: 443, toPort: 443, openTo: ['0.0.0.0/0'] }),
    ).toBeUndefined();
    expect(
      controlsFor('sg_open_port', { protocol: 'tcp', fromPort: 8443, toPort: 8443, openTo: ['0.0.0.0/0'] }),
    ).toEqual({
      securityHub: ['EC2.18'],
      cis: [],
    });
  });

  it('maps ACL grants by permission and only when they take effect', () => {
    expect(controlsFor('s3_bucket_acl_public', { effective: true, permissions: ['READ'] })).toEqual({
      securityHub: ['S3.12', 'S3.2'],
      cis: [],
    });
    expect(controlsFor('s3_bucket_acl_public', { effective: true, permissions: ['FULL_CONTROL'] })).toEqual({
      securityHub: ['S3.12', 'S3.2', 'S3.3'],
      cis: [],
    });
    expect(controlsFor('s3_bucket_acl_public', { effective: false, permissions: ['WRITE'] })).toEqual({
      securityHub: ['S3.12'],
      cis: [],
    });
  });

  it('names only well-formed control ids', () => {
    for (const rules of Object.values(CHECK_CONTROLS)) {
      for (const rule of rules) {
        for (const id of rule.securityHub ?? []) expect(id).toMatch(/^[A-Za-z0-9]+\.\d+$/);
        for (const id of rule.cis ?? []) expect(id).toMatch(/^\d+(\.\d+)+$/);
      }
    }
  });
});
