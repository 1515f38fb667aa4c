import { toolFunctionsFromEnvironment } from '../../../functions/dispatcher/lambda-invoker';
import { levelWhitelistsFromEnvironment } from '../../../functions/dispatcher/levels';

describe('TOOL_FUNCTIONS, read once when the dispatcher loads', () => {
  it('maps tool names to function names or ARNs', () => {
    // Prepare
    const env = {
      TOOL_FUNCTIONS: JSON.stringify({
        aws_ec2_inventory: 'arn:aws:lambda:eu-west-1:123456789012:function:etp-aws-ec2-inventory',
        slack_post_message: 'etp-slack-post-message',
      }),
    };

    // Act
    const functions = toolFunctionsFromEnvironment(env);

    // Assess
    expect(functions).toEqual({
      aws_ec2_inventory: 'arn:aws:lambda:eu-west-1:123456789012:function:etp-aws-ec2-inventory',
      slack_post_message: 'etp-slack-post-message',
    });
  });

  it.each([
    ['missing', undefined, 'TOOL_FUNCTIONS is not set for the dispatcher'],
    ['not JSON', '{aws_ec2_inventory: fn}', /^TOOL_FUNCTIONS is not JSON: /],
    ['an array', '["etp-aws-ec2-inventory"]', 'TOOL_FUNCTIONS must be a JSON object { tool: functionName }'],
    [
      'a non-string value',
      '{"aws_ec2_inventory":42}',
      'TOOL_FUNCTIONS must be a JSON object { tool: functionName }',
    ],
  ])('fails the init when it is %s', (_label, value, message) => {
    // Act
    const read = () => toolFunctionsFromEnvironment({ TOOL_FUNCTIONS: value });

    // Assess
    expect(read).toThrow(message);
  });
});

describe('SCENARIO_LEVELS, read once when the dispatcher loads', () => {
  it('maps scenarios to levels to tool names', () => {
    // Prepare
    const levels = { aws_pulse: { collect: ['aws_ec2_inventory'], report: ['slack_post_message'] } };

    // Act
    const whitelists = levelWhitelistsFromEnvironment({ SCENARIO_LEVELS: JSON.stringify(levels) });

    // Assess
    expect(whitelists).toEqual(levels);
  });

  it.each([
    ['missing', undefined, 'SCENARIO_LEVELS is not set for the dispatcher'],
    ['not JSON', "{aws_pulse: {collect: ['aws_ec2_inventory']}}", /^SCENARIO_LEVELS is not JSON: /],
    [
      'a level that is not a list of names',
      '{"aws_pulse":{"collect":"aws_ec2_inventory"}}',
      'SCENARIO_LEVELS must be a JSON object { scenario: { level: [tool names] } }',
    ],
    [
      'an array of scenarios',
      '[{"collect":["aws_ec2_inventory"]}]',
      'SCENARIO_LEVELS must be a JSON object { scenario: { level: [tool names] } }',
    ],
  ])('fails the init when it is %s', (_label, value, message) => {
    // Act
    const read = () => levelWhitelistsFromEnvironment({ SCENARIO_LEVELS: value });

    // Assess
    expect(read).toThrow(message);
  });
});
