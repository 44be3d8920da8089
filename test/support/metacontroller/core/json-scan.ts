// Finds duplicated object keys in JSON text (JSON.parse silently keeps the last one), reported
// as paths like `.children` or `.relatedResources[0].names`, so strict decoding can refuse them
// the way Kubernetes' strict JSON decoder does. The text must already be valid JSON.

class Scanner {
  private pos = 0;
  readonly duplicates: string[] = [];

  constructor(private readonly text: string) {}

  private skipSpace(): void {
    while (/\s/u.test(this.text.charAt(this.pos))) this.pos += 1;
  }

  private readString(): string {
    const start = this.pos;
    this.pos += 1;
    while (this.text.charAt(this.pos) !== '"') {
      this.pos += this.text.charAt(this.pos) === '\\' ? 2 : 1;
    }
    this.pos += 1;
    return JSON.parse(this.text.slice(start, this.pos)) as string;
  }

  private skipScalar(): void {
    while (this.pos < this.text.length && !/[\s,\]}]/u.test(this.text.charAt(this.pos))) this.pos += 1;
  }

  value(path: string): void {
    this.skipSpace();
    const c = this.text.charAt(this.pos);
    if (c === '{') this.object(path);
    else if (c === '[') this.array(path);
    else if (c === '"') this.readString();
    else this.skipScalar();
    this.skipSpace();
  }

  private object(path: string): void {
    const seen = new Set<string>();
    this.pos += 1;
    this.skipSpace();
    while (this.text.charAt(this.pos) !== '}') {
      const key = this.readString();
      if (seen.has(key)) this.duplicates.push(`${path}.${key}`);
      seen.add(key);
      this.skipSpace();
      this.pos += 1; // ':'
      this.value(`${path}.${key}`);
      if (this.text.charAt(this.pos) === ',') this.pos += 1;
      this.skipSpace();
    }
    this.pos += 1;
  }

  private array(path: string): void {
    this.pos += 1;
    this.skipSpace();
    for (let index = 0; this.text.charAt(this.pos) !== ']'; index += 1) {
      this.value(`${path}[${String(index)}]`);
      if (this.text.charAt(this.pos) === ',') this.pos += 1;
      this.skipSpace();
    }
    this.pos += 1;
  }
}

export function duplicateKeyPaths(text: string): string[] {
  const scanner = new Scanner(text);
  scanner.value('');
  return scanner.duplicates;
}
