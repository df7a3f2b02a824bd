//! Diagnostic passes that exercise the layout: `insert-nops` grows every basic block by one
//! instruction, `remove-nops` takes exactly those instructions out again (by edit record, never
//! by guessing which `s_nop 0` is ours).
//!
//! ```text
//! insert-nops:                          remove-nops (after insert-nops):
//!   .LBB1:                                .LBB1:
//!     s_nop 0            // inserted        v_add_u32 v0, v1, v0
//!     v_add_u32 v0, v1, v0                  s_cbranch_scc1 .LBB1
//!     s_cbranch_scc1 .LBB1
//! ```

use crate::ir::{Function, InstRef, Origin};
use crate::isa::table::{Opcode, OperandName};
use crate::isa::operand::Value;

use super::{Ctx, Pass, PassStats};

pub struct InsertNops;
pub struct RemoveNops;

const INSERT_NOPS: &str = "insert-nops";

impl Pass for InsertNops {
    fn name(&self) -> &'static str {
        INSERT_NOPS
    }

    fn description(&self) -> &'static str {
        "insert an s_nop 0 at the start of every basic block"
    }

    fn run(&self, function: &mut Function, ctx: &Ctx<'_>, stats: &mut PassStats) {
        let Some(nop) = ctx.builder.borrow_mut().build(Opcode::S_NOP, &[(OperandName::simm16, Value::Imm(0))]) else {
            stats.decline("s_nop 0 does not encode for this target");
            return;
        };
        for block in 0..function.blocks.len() {
            match function.insert_before(InstRef { block, index: 0 }, nop, INSERT_NOPS) {
                Ok(()) => stats.applied += 1,
                Err(d) => stats.decline(d.reason()),
            }
        }
    }
}

impl Pass for RemoveNops {
    fn name(&self) -> &'static str {
        "remove-nops"
    }

    fn description(&self) -> &'static str {
        "remove the s_nop 0 instructions insert-nops added (by edit record)"
    }

    fn run(&self, function: &mut Function, _ctx: &Ctx<'_>, stats: &mut PassStats) {
        for block in 0..function.blocks.len() {
            let mut index = 0;
            while index < function.blocks[block].nodes.len() {
                let node = function.blocks[block].nodes[index];
                let ours = matches!(node.origin, Origin::Inserted { edit } if function.edits[edit as usize].pass == INSERT_NOPS);
                if !ours {
                    index += 1;
                    continue;
                }
                match function.delete(InstRef { block, index }, self.name()) {
                    Ok(()) => stats.applied += 1,
                    Err(d) => {
                        stats.decline(d.reason());
                        index += 1;
                    }
                }
            }
        }
    }
}
