// Preloaded into a bench's child process (node -r): at exit, writes the process's own CPU time and
// peak resident set to the file SCROLL_BENCH_USAGE names, as JSON. A parent cannot read a child's
// rusage from Node, and CPU time is the figure that holds on a loaded machine.
const { writeFileSync } = require('node:fs');
const file = process.env.SCROLL_BENCH_USAGE;
if (file) {
  process.on('exit', () => {
    const cpu = process.cpuUsage();
    const ru = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ userMs: cpu.user / 1000, systemMs: cpu.system / 1000, maxRssKiB: ru.maxRSS }));
  });
}
