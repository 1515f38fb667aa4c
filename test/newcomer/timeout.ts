// The newcomer suite runs the README's commands as child processes (npm start, cdk synth,
// the MCP client's spawn): each takes seconds to minutes on a loaded machine, not Jest's 5 s.
jest.setTimeout(300_000);
