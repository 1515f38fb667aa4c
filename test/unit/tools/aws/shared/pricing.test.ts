import {
  ebsVolumeMonthlyUsd,
  natGatewayPrices,
  PRICE_TABLE_DATE,
  priceSource,
  publicIpv4HourUsd,
  REGION_PRICES,
} from '../../../../../functions/tools/aws/shared/pricing';
import { DEFAULT_ENABLED_REGIONS } from '../../../../helpers/ec2-pages';

describe('the regional price table', () => {
  it('covers the 17 default regions, dated', () => {
    expect(Object.keys(REGION_PRICES).sort()).toEqual([...DEFAULT_ENABLED_REGIONS].sort());
    expect(PRICE_TABLE_DATE).toMatch(/^\d{4}-\d{2}$/);
    expect(priceSource('ebs', 'sa-east-1')).toBe(
      `Amazon EBS pricing, sa-east-1 (price table ${PRICE_TABLE_DATE})`,
    );
  });

  it('prices the same volume by its region, not by us-east-1', () => {
    const volume = { volumeType: 'gp2', sizeGiB: 100 };
    expect(ebsVolumeMonthlyUsd(volume, 'us-east-1')).toBeCloseTo(10);
    expect(ebsVolumeMonthlyUsd(volume, 'sa-east-1')).toBeCloseTo(19);
    expect(ebsVolumeMonthlyUsd(volume, 'eu-central-1')).toBeCloseTo(11.9);
    expect(natGatewayPrices('ap-northeast-1')).toEqual({ hour: 0.062, gb: 0.062 });
    expect(natGatewayPrices('us-east-1')).toEqual({ hour: 0.045, gb: 0.045 });
  });

  it('says unavailable where it has no price: a region, a volume type, or a gp3 extra outside the table', () => {
    expect(ebsVolumeMonthlyUsd({ volumeType: 'gp2', sizeGiB: 100 }, 'ap-east-1')).toBeUndefined();
    expect(ebsVolumeMonthlyUsd({ volumeType: 'st1', sizeGiB: 500 }, 'eu-west-1')).toBeUndefined();
    expect(ebsVolumeMonthlyUsd({ volumeType: 'gp3', sizeGiB: 100, iops: 3000 }, 'eu-west-1')).toBeCloseTo(
      8.8,
    );
    expect(ebsVolumeMonthlyUsd({ volumeType: 'gp3', sizeGiB: 100, iops: 6000 }, 'eu-west-1')).toBeUndefined();
    expect(ebsVolumeMonthlyUsd({ volumeType: 'gp3', sizeGiB: 100, iops: 6000 }, 'us-east-1')).toBeCloseTo(23);
    expect(natGatewayPrices('me-south-1')).toBeUndefined();
    expect(publicIpv4HourUsd('cn-north-1')).toBeUndefined();
    expect(ebsVolumeMonthlyUsd({ volumeType: 'gp2', sizeGiB: 1 }, 'toString')).toBeUndefined();
  });
});
