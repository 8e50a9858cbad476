// Run by build.py: rpg-dice-roller with forced dice. stdin: [{expr, words}], stdout: totals.
// generator.integer(min, max) is how every die is rolled; answering min + w % (max-min+1)
// gives the face pbp-dice gives the same word (w % sides + 1; Fate: -1 + w % 3).
import { DiceRoll, NumberGenerator } from '@dice-roller/rpg-dice-roller';
import { readFileSync } from 'node:fs';

const items = JSON.parse(readFileSync(0, 'utf8'));
const out = [];
let words = [];
let at = 0;
NumberGenerator.generator.integer = (min, max) => {
  if (at >= words.length) throw new Error('OutOfDice');
  const w = BigInt(words[at]);
  at += 1;
  return min + Number(w % BigInt(max - min + 1));
};
for (const item of items) {
  const totals = [];
  for (const seq of item.words) {
    words = seq;
    at = 0;
    try {
      totals.push(new DiceRoll(item.expr).total);
    } catch (e) {
      totals.push(e.message === 'OutOfDice' ? 'OutOfDice' : (e.name || 'Error'));
    }
  }
  out.push(totals);
}
process.stdout.write(JSON.stringify(out));
