// Compound commands and arithmetic in a command line: groups, conditionals, loops, `case`, functions,
// `[[ ]]`, `(( ))`. Nothing inside them is plain, so allow rules never cover them; every list, word and
// arithmetic inside is still read, so deny and ask rules see the commands they hold.
import { nodeType, type ShellNode, type ShellStatement, type ShellWord } from './shell-syntax.ts';
import { readWord, type WordVisitor } from './shell-word.ts';

/**
 * The command-line reader as compound commands need it: what a word visitor does, plus noting a doubt and
 * reading a variable assignment (`declare x=…`).
 */
export interface NestedReader extends WordVisitor {
  doubt(reason: string): void;
  assign(assign: ShellNode): void;
}

/** Arithmetic: its substitutions are read; a variable in it is unsure, since bash evaluates its value too. */
export function readArithmetic(node: ShellNode | null, reader: NestedReader): void {
  if (node === null) return;
  const type = nodeType(node);
  if (type === 'Word') {
    const word = readWord(node as ShellWord, reader);
    if (word.text === undefined || !/^(0[xX][0-9a-fA-F]+|[0-9]+(#[0-9A-Za-z@_]+)?)$/.test(word.text)) {
      // `x='a[$(rm -rf ~)]'; echo $((x))` runs rm: the value of a variable is evaluated as arithmetic.
      reader.doubt('arithmetic on a variable can run commands its value holds');
    }
  } else if (type === 'BinaryArithm') {
    readArithmetic(node.X as ShellNode, reader);
    readArithmetic(node.Y as ShellNode, reader);
  } else if (type === 'UnaryArithm' || type === 'ParenArithm') {
    readArithmetic(node.X as ShellNode, reader);
  } else reader.unknown(`arithmetic the reader does not know (${type})`);
}

/** A compound command: every list, word and arithmetic inside it is read; none of it is plain. */
export function readCompound(command: ShellNode, type: string, reader: NestedReader): void {
  const lists = (...fields: string[]) => {
    for (const field of fields) reader.statements(command[field] as ShellStatement[]);
  };
  switch (type) {
    case 'Subshell':
    case 'Block':
      lists('Stmts');
      break;
    case 'IfClause':
      lists('Cond', 'Then');
      if (command.Else !== null) readCompound(command.Else as ShellNode, 'IfClause', reader);
      break;
    case 'WhileClause':
      lists('Cond', 'Do');
      break;
    case 'ForClause':
      readLoop(command.Loop as ShellNode, reader);
      lists('Do');
      break;
    case 'CaseClause':
      readWord(command.Word as ShellWord, reader);
      for (const item of command.Items as ShellNode[]) {
        for (const pattern of item.Patterns as ShellWord[]) readWord(pattern, reader);
        reader.statements(item.Stmts as ShellStatement[]);
      }
      break;
    case 'FuncDecl':
      reader.doubt(`it defines a function (${(command.Name as { Value: string }).Value})`);
      reader.statements([command.Body as ShellStatement]);
      break;
    case 'ArithmCmd':
      readArithmetic(command.X as ShellNode, reader);
      break;
    case 'LetClause':
      for (const expression of command.Exprs as ShellNode[]) readArithmetic(expression, reader);
      break;
    case 'TestClause':
      readTest(command.X as ShellNode, reader);
      break;
    case 'DeclClause':
      for (const assign of command.Args as ShellNode[]) reader.assign(assign);
      break;
    case 'TimeClause':
    case 'CoprocClause':
      if (command.Stmt !== null) reader.statements([command.Stmt as ShellStatement]);
      break;
    default:
      reader.unknown(`a command the reader does not know (${type})`);
  }
}

function readLoop(loop: ShellNode, reader: NestedReader): void {
  const type = nodeType(loop);
  if (type === 'WordIter') {
    for (const word of loop.Items as ShellWord[]) readWord(word, reader);
  } else if (type === 'CStyleLoop') {
    for (const field of ['Init', 'Cond', 'Post']) readArithmetic(loop[field] as ShellNode | null, reader);
  } else reader.unknown(`a loop the reader does not know (${type})`);
}

/** `[[ ... ]]`: comparisons such as -eq evaluate their operands as arithmetic, so an expansion is unsure. */
function readTest(node: ShellNode, reader: NestedReader): void {
  const type = nodeType(node);
  if (type === 'Word') {
    if (readWord(node as ShellWord, reader).text === undefined) {
      reader.doubt('[[ ]] can evaluate a variable as arithmetic, which can run commands its value holds');
    }
  } else if (type === 'BinaryTest') {
    readTest(node.X as ShellNode, reader);
    readTest(node.Y as ShellNode, reader);
  } else if (type === 'UnaryTest' || type === 'ParenTest') {
    readTest(node.X as ShellNode, reader);
  } else reader.unknown(`a test the reader does not know (${type})`);
}
