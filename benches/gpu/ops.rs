//! Arithmetic per sample, counted from a kernel's naga IR: every arithmetic expression the
//! kernel evaluates for one invocation (one sample), per vector component, through the
//! functions it calls.
//!
//! The rules (a static count, so they are approximations, stated where they are made):
//! - Float operations: `+ - * /`, negation, comparisons of floats and the math built-ins,
//!   one per component (`dot` of n components counts 2n - 1, `fma` and `mix` 2, `smoothstep`
//!   and `clamp` 3, `length` and `distance` 2n; `sqrt`, `exp`, `floor` ... 1). A multiply and
//!   an add count 2 whether or not the compiler fuses them: the convention of a peak FLOP/s
//!   that counts a fused multiply-add as 2.
//! - Integer operations: the same operators on integers and the bit operations (and, or, xor,
//!   shifts), one per component.
//! - Other: `select`, conversions between float and integer, logical operators, `any` / `all`.
//!   Bit casts, loads, stores, constructors, swizzles and accesses count nothing.
//! - A loop whose trip count is a constant (`for (var i = A; i < B; i++)` with constant A and
//!   B, no data-dependent `break` in its body) counts its body that many times. Any other
//!   loop (a bound read from a uniform or a buffer, a data-dependent exit: Gabor impulses,
//!   wave counts, Gabor cell ranges) counts its body once, and the count is marked as a lower
//!   bound (`lower_bound`).
//! - A branch counts its larger side (a GPU runs both sides where lanes diverge); a branch on
//!   a constant condition (specialization constants, template switches) counts the side taken.

use std::collections::HashMap;

use naga::{
    BinaryOperator, Block, Expression, Function, Handle, Literal, MathFunction, Module, ScalarKind,
    Statement, TypeInner, UnaryOperator,
};

/// Operations per invocation, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct OpCount {
    /// Float arithmetic (a multiply-add counts 2).
    pub float: f64,
    /// Integer and bit arithmetic.
    pub int: f64,
    /// Selects, conversions, logical operators.
    pub other: f64,
    /// A loop with a trip count that is not a constant was counted once.
    pub lower_bound: bool,
}

impl OpCount {
    /// Every operation counted.
    pub fn total(&self) -> f64 {
        self.float + self.int + self.other
    }

    fn add(&mut self, other: OpCount, times: f64) {
        self.float += other.float * times;
        self.int += other.int * times;
        self.other += other.other * times;
        self.lower_bound |= other.lower_bound;
    }

    fn max(a: OpCount, b: OpCount) -> OpCount {
        let mut m = if a.total() >= b.total() { a } else { b };
        m.lower_bound = a.lower_bound || b.lower_bound;
        m
    }

    /// The sum of each count times its factor.
    pub fn scaled_sum(items: &[(OpCount, f64)]) -> OpCount {
        let mut sum = OpCount::default();
        for &(c, t) in items {
            sum.add(c, t);
        }
        sum
    }
}

/// Counts the operations of one invocation of the compute entry point of `source`.
pub fn count_entry_point(source: &str) -> Result<OpCount, String> {
    let (module, info) = parse(source)?;
    let (index, entry) = module
        .entry_points
        .iter()
        .enumerate()
        .find(|(_, e)| e.stage == naga::ShaderStage::Compute)
        .ok_or("the kernel has no compute entry point")?;
    let mut counter = Counter {
        module: &module,
        info: &info,
        memo: HashMap::new(),
    };
    Ok(counter.function(&entry.function, info.get_entry_point(index)))
}

/// Counts the operations of one call of the function `name` in `source`.
pub fn count_function(source: &str, name: &str) -> Result<OpCount, String> {
    let (module, info) = parse(source)?;
    let (handle, function) = module
        .functions
        .iter()
        .find(|(_, f)| f.name.as_deref() == Some(name))
        .ok_or_else(|| format!("no function '{name}' in the module"))?;
    let mut counter = Counter {
        module: &module,
        info: &info,
        memo: HashMap::new(),
    };
    Ok(counter.function(function, &info[handle]))
}

fn parse(source: &str) -> Result<(Module, naga::valid::ModuleInfo), String> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string(source))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| format!("{e:?}"))?;
    Ok((module, info))
}

struct Counter<'m> {
    module: &'m Module,
    info: &'m naga::valid::ModuleInfo,
    /// Each called function's count (functions do not recurse in WGSL).
    memo: HashMap<Handle<Function>, OpCount>,
}

/// One function's context while its statements are walked.
struct Scope<'f> {
    function: &'f Function,
    info: &'f naga::valid::FunctionInfo,
}

impl<'m> Counter<'m> {
    fn function(&mut self, function: &Function, info: &naga::valid::FunctionInfo) -> OpCount {
        let scope = Scope { function, info };
        self.block(&scope, &function.body)
    }

    fn block(&mut self, scope: &Scope, block: &Block) -> OpCount {
        let mut count = OpCount::default();
        for (i, statement) in block.iter().enumerate() {
            let c = self.statement(scope, statement, &block[..i]);
            count.add(c, 1.0);
            // Nothing after a return or a break runs.
            if matches!(statement, Statement::Return { .. } | Statement::Break) {
                break;
            }
        }
        count
    }

    /// One statement's count; `before` holds the statements before it in its block (where a
    /// loop counter declared inside another loop gets its first value).
    fn statement(&mut self, scope: &Scope, statement: &Statement, before: &[Statement]) -> OpCount {
        match statement {
            Statement::Emit(range) => {
                let mut count = OpCount::default();
                for handle in range.clone() {
                    count.add(self.expression(scope, handle), 1.0);
                }
                count
            }
            Statement::Block(block) => self.block(scope, block),
            Statement::If {
                condition,
                accept,
                reject,
            } => match self.const_bool(scope, *condition) {
                Some(true) => self.block(scope, accept),
                Some(false) => self.block(scope, reject),
                None => {
                    let a = self.block(scope, accept);
                    let r = self.block(scope, reject);
                    OpCount::max(a, r)
                }
            },
            Statement::Switch { cases, .. } => cases
                .iter()
                .map(|c| self.block(scope, &c.body))
                .fold(OpCount::default(), OpCount::max),
            Statement::Loop {
                body, continuing, ..
            } => {
                let mut once = self.block(scope, body);
                once.add(self.block(scope, continuing), 1.0);
                match self.trip_count(scope, body, continuing, before) {
                    Some(n) => OpCount::scaled_sum(&[(once, n as f64)]),
                    None => {
                        once.lower_bound = true;
                        once
                    }
                }
            }
            Statement::Call { function, .. } => self.call(*function),
            _ => OpCount::default(),
        }
    }

    fn call(&mut self, handle: Handle<Function>) -> OpCount {
        if let Some(c) = self.memo.get(&handle) {
            return *c;
        }
        let module = self.module;
        let info = self.info;
        let c = self.function(&module.functions[handle], &info[handle]);
        self.memo.insert(handle, c);
        c
    }

    /// Components of an expression's value (1 for a scalar).
    fn width(&self, scope: &Scope, handle: Handle<Expression>) -> f64 {
        match scope.info[handle].ty.inner_with(&self.module.types) {
            TypeInner::Vector { size, .. } => *size as u8 as f64,
            TypeInner::Matrix { columns, rows, .. } => (*columns as u8 * *rows as u8) as f64,
            _ => 1.0,
        }
    }

    fn kind(&self, scope: &Scope, handle: Handle<Expression>) -> Option<ScalarKind> {
        scope.info[handle]
            .ty
            .inner_with(&self.module.types)
            .scalar_kind()
    }

    fn expression(&mut self, scope: &Scope, handle: Handle<Expression>) -> OpCount {
        let mut c = OpCount::default();
        let width = self.width(scope, handle);
        let by_kind = |c: &mut OpCount, kind: Option<ScalarKind>, n: f64| match kind {
            Some(ScalarKind::Float | ScalarKind::AbstractFloat) => c.float += n,
            Some(ScalarKind::Sint | ScalarKind::Uint | ScalarKind::AbstractInt) => c.int += n,
            _ => c.other += n,
        };
        match &scope.function.expressions[handle] {
            Expression::Unary { op, expr } => match op {
                UnaryOperator::LogicalNot => c.other += width,
                UnaryOperator::Negate | UnaryOperator::BitwiseNot => {
                    by_kind(&mut c, self.kind(scope, *expr), width)
                }
            },
            Expression::Binary { op, left, right } => {
                // A vector op a scalar is as wide as the vector.
                let n = width
                    .max(self.width(scope, *left))
                    .max(self.width(scope, *right));
                match op {
                    BinaryOperator::LogicalAnd | BinaryOperator::LogicalOr => c.other += n,
                    _ => by_kind(&mut c, self.kind(scope, *left), n),
                }
            }
            Expression::Select { .. } | Expression::Relational { .. } => c.other += width,
            // A conversion between kinds; a bit cast (`convert: None`) costs nothing.
            Expression::As { convert, expr, .. }
                if convert.is_some() && self.kind(scope, *expr) != self.kind(scope, handle) =>
            {
                c.other += width
            }
            Expression::Math { fun, arg, .. } => {
                let n = self.width(scope, *arg);
                let ops = match fun {
                    MathFunction::Dot => 2.0 * n - 1.0,
                    MathFunction::Length | MathFunction::Distance => 2.0 * n,
                    MathFunction::Fma | MathFunction::Mix => 2.0 * n,
                    MathFunction::SmoothStep | MathFunction::Clamp => 3.0 * n,
                    MathFunction::Normalize => 4.0 * n,
                    MathFunction::Cross => 9.0,
                    _ => n,
                };
                by_kind(&mut c, self.kind(scope, *arg), ops);
            }
            _ => {}
        }
        c
    }

    /// A boolean constant condition (see [`Counter::constant`]).
    fn const_bool(&self, scope: &Scope, handle: Handle<Expression>) -> Option<bool> {
        match self.constant(&scope.function.expressions, handle)? {
            Literal::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// An integer constant (see [`Counter::constant`]).
    fn const_int(&self, scope: &Scope, handle: Handle<Expression>) -> Option<i64> {
        match self.constant(&scope.function.expressions, handle)? {
            Literal::I32(v) => Some(v as i64),
            Literal::U32(v) => Some(v as i64),
            Literal::I64(v) => Some(v),
            Literal::U64(v) => Some(v as i64),
            Literal::AbstractInt(v) => Some(v),
            _ => None,
        }
    }

    /// The value of a constant expression of `exprs` (a function's or the module's): a
    /// literal, a named constant, or the negation of an integer constant.
    fn constant(
        &self,
        exprs: &naga::Arena<Expression>,
        handle: Handle<Expression>,
    ) -> Option<Literal> {
        match &exprs[handle] {
            Expression::Literal(l) => Some(*l),
            Expression::Constant(c) => self.constant(
                &self.module.global_expressions,
                self.module.constants[*c].init,
            ),
            Expression::Unary {
                op: UnaryOperator::Negate,
                expr,
            } => match self.constant(exprs, *expr)? {
                Literal::I32(v) => Some(Literal::I32(-v)),
                Literal::I64(v) => Some(Literal::I64(-v)),
                Literal::AbstractInt(v) => Some(Literal::AbstractInt(-v)),
                _ => None,
            },
            _ => None,
        }
    }

    /// The trip count of `for (var i = A; i < B; i++)` (or `<=`) with constant A and B and
    /// no other exit, as naga lowers it: the body opens with `if (cond) {} else { break; }`
    /// on a load of the counter, and the continuing block stores the counter plus 1.
    fn trip_count(
        &self,
        scope: &Scope,
        body: &Block,
        continuing: &Block,
        before: &[Statement],
    ) -> Option<i64> {
        let exprs = &scope.function.expressions;
        let mut statements = body.iter().skip_while(|s| matches!(s, Statement::Emit(_)));
        let Some(Statement::If {
            condition,
            accept,
            reject,
        }) = statements.next()
        else {
            return None;
        };
        if !accept.is_empty() || !matches!(reject.iter().next(), Some(Statement::Break)) {
            return None;
        }
        // No other way out of the loop: a data-dependent `break` or `return` in the rest.
        if statements.any(exits) {
            return None;
        }
        let Expression::Binary { op, left, right } = &exprs[*condition] else {
            return None;
        };
        let Expression::Load { pointer } = &exprs[*left] else {
            return None;
        };
        let Expression::LocalVariable(var) = &exprs[*pointer] else {
            return None;
        };
        let bound = self.const_int(scope, *right)?;
        // The counter's first value: its initializer, or (for a variable declared inside
        // another loop, which naga re-initializes with a store) the last store before the loop.
        let stored = before.iter().rev().find_map(|s| match s {
            Statement::Store { pointer, value }
                if matches!(exprs[*pointer], Expression::LocalVariable(v) if v == *var) =>
            {
                Some(*value)
            }
            _ => None,
        });
        let start = self.const_int(scope, stored.or(scope.function.local_variables[*var].init)?)?;
        // The counter steps by one in the continuing block.
        let steps_by_one = continuing.iter().any(|s| match s {
            Statement::Store { pointer, value } => {
                matches!(exprs[*pointer], Expression::LocalVariable(v) if v == *var)
                    && matches!(&exprs[*value], Expression::Binary { op: BinaryOperator::Add, right, .. }
                        if self.const_int(scope, *right) == Some(1))
            }
            _ => false,
        });
        if !steps_by_one {
            return None;
        }
        match op {
            BinaryOperator::Less => Some((bound - start).max(0)),
            BinaryOperator::LessEqual => Some((bound - start + 1).max(0)),
            _ => None,
        }
    }
}

/// Whether a statement can leave the loop it is in (a `break` or `return`, in a branch).
fn exits(statement: &Statement) -> bool {
    match statement {
        Statement::Break | Statement::Return { .. } => true,
        Statement::Block(b) => b.iter().any(exits),
        Statement::If { accept, reject, .. } => {
            accept.iter().any(exits) || reject.iter().any(exits)
        }
        Statement::Switch { cases, .. } => cases.iter().any(|c| c.body.iter().any(exits)),
        // A nested loop's own breaks leave only it; its returns leave everything.
        Statement::Loop { body, .. } => body.iter().any(returns),
        _ => false,
    }
}

fn returns(statement: &Statement) -> bool {
    match statement {
        Statement::Return { .. } => true,
        Statement::Block(b) => b.iter().any(returns),
        Statement::If { accept, reject, .. } => {
            accept.iter().any(returns) || reject.iter().any(returns)
        }
        Statement::Switch { cases, .. } => cases.iter().any(|c| c.body.iter().any(returns)),
        Statement::Loop { body, .. } => body.iter().any(returns),
        _ => false,
    }
}
