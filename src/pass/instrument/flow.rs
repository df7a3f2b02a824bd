//! Counting on the edges off a spanning tree (Knuth, "Optimal measurement points for program
//! frequency counts", 1973; Ball & Larus, "Optimally profiling and tracing programs", 1994):
//! counts are a flow, so the counts on the chords of a spanning tree of the control-flow graph
//! (closed by a virtual exit -> entry edge) give every other count by conservation. This module
//! chooses where `count-blocks` measures and solves the counts back from what it measured; the
//! instrumenting pass and `gfxpatch counters` build the same graph from the same description
//! ([`FlowBlock`], which the map file records), so they cannot disagree.
//!
//! **What flows.** Both counters of a block count at its start: waves that arrive with
//! EXEC != 0, and their active lanes. A branch does not change EXEC, so along every edge the two
//! counts are those of the traversals with EXEC at that moment; a block that does not write EXEC
//! passes each wave on, with the same EXEC, to exactly one successor or out of the function, so
//! what enters it leaves it. A block that writes EXEC (`s_and_saveexec`, `s_or_b64 exec`,
//! `v_cmpx`, ...), or calls (the callee may end the wave), or holds an instruction we cannot
//! read breaks conservation: it is *split* into an in-node, whose throughput its start counts,
//! and an out-node, whose throughput is what leaves it; the two are joined only through the
//! virtual root (in -> root and root -> out), so the solver never assumes one equals the other.
//!
//! **The graph** (per function): the root; per block an in-node; an out-node if it splits; a
//! top-node if it has two or more ways in (predecessors, or entry from outside the function),
//! joined to the in-node by the block's own edge, which a probe at the block's start measures.
//! The top-node costs nothing (one node and one edge more keep the number of chords) and lets
//! the tree keep a critical edge (from a block with several successors to one with several
//! predecessors, which no probe can measure without splitting the edge) while measuring the
//! block it enters instead.
//!
//! **Measurable edges.** A probe at a block's start measures its in-node's throughput, so the
//! edge into an in-node with one way in, and the edge out of an unsplit block with one way out;
//! a probe before a split block's terminator (a branch, `s_endpgm`, a return) measures its
//! out-node, so its one way out. Every other edge must be in the tree: the maximum spanning
//! tree takes the unmeasurable edges first, then the rest by estimated frequency (8^loop depth:
//! back-edges and loop bodies stay in the tree, probes go to loop entries and exits). If the
//! unmeasurable edges close a cycle (a critical edge that would have to be a chord), the blocks
//! whose counts do not follow get a probe at their start instead ([`Reason::CriticalEdge`]).
//! Whatever is placed, [`solve`] is run on the placement before it is accepted: every block's
//! count follows from what is measured, or the block is measured.

use serde::{Deserialize, Serialize};

/// One block, as the counting sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowBlock {
    /// Indexes of its successors within the function.
    pub successors: Vec<usize>,
    /// Control may enter it from outside the function: the function's entry, a branch from
    /// another function, or a block nothing inside the function reaches.
    pub entered: bool,
    /// Control may leave the function from it.
    pub exits: bool,
    /// EXEC is written inside it (or it calls, or holds an instruction we cannot read): what
    /// leaves it is not what entered it.
    pub splits: bool,
}

/// Where a probe counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Point {
    /// At the block's start: waves and lanes entering it.
    Start(usize),
    /// Before the block's terminator: waves and lanes leaving it.
    End(usize),
}

/// Why a block gets a start probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// It measures a chord of the spanning tree.
    Chord,
    /// Its count does not follow from the other probes' (`prune`), or every block is
    /// probed (`count-every-block`).
    Block,
    /// A critical edge had to be a chord and cannot be measured without splitting it (the
    /// layout does not split edges): the block it enters, or one whose count did not follow
    /// from the chords, is measured instead.
    CriticalEdge,
}

/// The probes one function needs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Placement {
    /// Sorted, without duplicates.
    pub points: Vec<(Point, Reason)>,
}

const ROOT: usize = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Root,
    /// A block's top-node: where its ways in meet (only for blocks with two or more).
    Top(usize),
    /// A block's in-node (also its out-node unless it splits).
    In(usize),
    /// A split block's out-node.
    Out(usize),
}

/// The flow graph of one function.
struct Graph {
    roles: Vec<Role>,
    edges: Vec<(usize, usize)>,
    inn: Vec<usize>,
    out: Vec<usize>,
}

impl Graph {
    fn of(blocks: &[FlowBlock]) -> Graph {
        let n = blocks.len();
        let mut ways_in = vec![0usize; n];
        for (b, block) in blocks.iter().enumerate() {
            ways_in[b] += usize::from(block.entered);
            for &s in &block.successors {
                ways_in[s] += 1;
            }
        }
        let mut roles = vec![Role::Root];
        let mut node = |role: Role| {
            roles.push(role);
            roles.len() - 1
        };
        let (mut top, mut inn, mut out) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
        for (b, block) in blocks.iter().enumerate() {
            let i = node(Role::In(b));
            inn.push(i);
            top.push(if ways_in[b] >= 2 { node(Role::Top(b)) } else { i });
            out.push(if block.splits { node(Role::Out(b)) } else { i });
        }
        let mut edges = Vec::new();
        for (b, block) in blocks.iter().enumerate() {
            if block.entered {
                edges.push((ROOT, top[b]));
            }
            for &s in &block.successors {
                edges.push((out[b], top[s]));
            }
            if block.exits {
                edges.push((out[b], ROOT));
            }
            if top[b] != inn[b] {
                edges.push((top[b], inn[b]));
            }
            if block.splits {
                edges.push((inn[b], ROOT));
                edges.push((ROOT, out[b]));
            }
        }
        Graph { roles, edges, inn, out }
    }

    /// The solver's variable for `node`'s throughput (after one per edge).
    fn throughput_variable(&self, node: usize) -> usize {
        self.edges.len() + node
    }

    /// Per variable of [`solve_graph`] (each edge's count, then each node's throughput): the
    /// two conservation equations it is in (`2 * node`: what flows into the node; `2 * node +
    /// 1`: what flows out), and whether it is a block's count (an in-node's throughput).
    fn variables(&self) -> Vec<((usize, usize), bool)> {
        let edges = self.edges.iter().map(|&(a, h)| ((2 * a + 1, 2 * h), false));
        let nodes = self.roles.iter().enumerate().map(|(v, role)| ((2 * v, 2 * v + 1), matches!(role, Role::In(_))));
        edges.chain(nodes).collect()
    }

    /// The probe that measures `node`'s throughput, if one can.
    fn probe_of(&self, node: usize, end_ok: &[bool]) -> Option<Point> {
        match self.roles[node] {
            Role::Root => None,
            // A top-node's only way on is its block's own edge.
            Role::Top(b) | Role::In(b) => Some(Point::Start(b)),
            Role::Out(b) => end_ok[b].then_some(Point::End(b)),
        }
    }
}

/// Loop depth of each block (natural loops of the back-edges a depth-first search from the
/// entered blocks finds), for the frequency estimate.
fn loop_depths(blocks: &[FlowBlock]) -> Vec<u32> {
    let n = blocks.len();
    let mut state = vec![0u8; n]; // 0 unseen, 1 on the stack, 2 done
    let mut back_edges = Vec::new();
    for start in (0..n).filter(|&b| blocks[b].entered) {
        if state[start] != 0 {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        state[start] = 1;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            if let Some(&s) = blocks[b].successors.get(*next) {
                *next += 1;
                match state[s] {
                    0 => {
                        state[s] = 1;
                        stack.push((s, 0));
                    }
                    1 => back_edges.push((b, s)),
                    _ => {}
                }
            } else {
                state[b] = 2;
                stack.pop();
            }
        }
    }
    let mut preds = vec![Vec::new(); n];
    for (b, block) in blocks.iter().enumerate() {
        for &s in &block.successors {
            preds[s].push(b);
        }
    }
    let mut depth = vec![0u32; n];
    let mut in_body = vec![usize::MAX; n];
    for (i, &(latch, header)) in back_edges.iter().enumerate() {
        in_body[header] = i;
        depth[header] += 1;
        let mut work = vec![latch];
        while let Some(b) = work.pop() {
            if in_body[b] != i {
                in_body[b] = i;
                depth[b] += 1;
                work.extend(preds[b].iter().copied());
            }
        }
    }
    depth
}

/// Chooses the probes of a function whose blocks are `blocks`; `end_ok[b]`: a probe may go
/// before block `b`'s terminator. Two candidates, the cheaper by estimated executions (8^loop
/// depth per probe) wins, ties to the fewer probes: the chords of a spanning tree, which give
/// every edge's count, and the blocks left of a probe in every block once each probe whose
/// count follows from the others is dropped, hottest first (`prune`; the chords are pruned
/// likewise, since only the blocks' counts are wanted, not every edge's). The first is
/// optimal where conservation holds everywhere; every split block adds a chord, and where
/// most blocks split (unoptimised code writes EXEC in nearly every block) the second wins.
pub fn place(blocks: &[FlowBlock], end_ok: &[bool]) -> Placement {
    let g = Graph::of(blocks);
    let frequency: Vec<f64> = loop_depths(blocks).iter().map(|&d| 8f64.powi(d.min(8) as i32)).collect();
    let chords = chords(&g, blocks, end_ok, &frequency);
    let cost = |p: &Placement| -> f64 { p.points.iter().map(|&(Point::Start(b) | Point::End(b), _)| frequency[b]).sum() };
    let every = every_block(blocks);
    // The chords give every edge's count; the blocks need fewer where a chord only tells how a
    // split block's outflow divides: prune those too.
    let (chords, pruned) = (prune(&g, chords.points, &frequency), prune(&g, every.points, &frequency));
    let (c, p) = (cost(&chords), cost(&pruned));
    let chosen = if p < c || p == c && pruned.points.len() < chords.points.len() { pruned } else { chords };
    // Accepted only if every block's count follows from it (a probe in every block always does).
    let measured: Vec<(Point, i128)> = chosen.points.iter().map(|&(p, _)| (p, 0)).collect();
    let determined = solve_graph(&g, blocks.len(), &measured).is_ok_and(|s| s.blocks.iter().all(Option::is_some));
    if determined { chosen } else { every_block(blocks) }
}

/// `points` less each one whose count follows by conservation from the probes still kept; the
/// hottest are tried first, so the probes left sit where control runs least.
///
/// Near-linear: each candidate is decided by [`Unmeasured::admit`] in almost constant time,
/// with the answer [`solve_graph`] would give on the whole graph (the test
/// `prune_decides_as_the_solver_does` holds the two against each other).
fn prune(g: &Graph, mut points: Vec<(Point, Reason)>, frequency: &[f64]) -> Placement {
    let block = |p: Point| match p {
        Point::Start(b) | Point::End(b) => b,
    };
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&x, &y| frequency[block(points[y].0)].total_cmp(&frequency[block(points[x].0)]).then(x.cmp(&y)));
    let variable_of = |p: Point| match p {
        Point::Start(b) => g.throughput_variable(g.inn[b]),
        Point::End(b) => g.throughput_variable(g.out[b]),
    };
    let variables = g.variables();
    let mut probes_on = vec![0u32; variables.len()];
    for &(p, _) in &points {
        probes_on[variable_of(p)] += 1;
    }
    let mut unmeasured = Unmeasured::new(2 * g.roles.len());
    for (v, &(ends, wanted)) in variables.iter().enumerate() {
        if probes_on[v] == 0 && !unmeasured.admit(ends, wanted) {
            // Some block's count does not follow even from every probe: none can go.
            return Placement { points };
        }
    }
    let mut kept = vec![true; points.len()];
    for i in order {
        let v = variable_of(points[i].0);
        // A second probe on the same count leaves it measured.
        let dropped = probes_on[v] > 1 || unmeasured.admit(variables[v].0, variables[v].1);
        if dropped {
            probes_on[v] -= 1;
            kept[i] = false;
        }
    }
    let mut kept = kept.into_iter();
    points.retain(|_| kept.next().unwrap());
    Placement { points }
}

/// The counts no probe measures, as [`solve_graph`] sees them: each count (an edge's, or a
/// node's throughput) is a variable in two conservation equations (a node's inflow, and its
/// outflow), so the unmeasured variables are the edges of a graph on the equations. The
/// solver settles an equation with one unknown left, which removes a leaf edge: what it
/// cannot settle is the 2-core of that graph (its cycles, and the paths between them).
///
/// Every block's count follows iff no *wanted* variable (an in-node's throughput) is in the
/// 2-core, which is: with *pieces* the components of the unwanted unmeasured variables, the
/// wanted ones join pieces as a forest (each is a bridge), and each tree of that forest holds
/// at most one piece with a cycle (a wanted variable between two cycles lies on the 2-core).
/// Two union-finds keep pieces and components, so adding a variable is decided without
/// solving anything: [`Unmeasured::admit`].
struct Unmeasured {
    /// Union-find over the equations: joined by unwanted unmeasured variables.
    piece: DisjointSets,
    /// Per piece (at its representative): it holds a cycle.
    cyclic: Vec<bool>,
    /// Union-find over the equations: joined by any unmeasured variable.
    component: DisjointSets,
    /// Per component (at its representative): how many of its pieces hold a cycle (at most 1).
    cyclic_pieces: Vec<u32>,
}

impl Unmeasured {
    fn new(equations: usize) -> Unmeasured {
        Unmeasured {
            piece: DisjointSets::new(equations),
            cyclic: vec![false; equations],
            component: DisjointSets::new(equations),
            cyclic_pieces: vec![0; equations],
        }
    }

    /// Leaves the variable joining equations `ends` unmeasured if every wanted count still
    /// follows; `wanted`: it is a block's count. False (and nothing changed) if not.
    fn admit(&mut self, (x, y): (usize, usize), wanted: bool) -> bool {
        let (cx, cy) = (self.component.find(x), self.component.find(y));
        if wanted {
            // A wanted variable inside one component closes a cycle through itself.
            if cx == cy || self.cyclic_pieces[cx] + self.cyclic_pieces[cy] > 1 {
                return false;
            }
            let c = self.component.union(cx, cy);
            self.cyclic_pieces[c] = self.cyclic_pieces[cx] + self.cyclic_pieces[cy];
            return true;
        }
        let (px, py) = (self.piece.find(x), self.piece.find(y));
        if px == py {
            // A cycle inside the piece: fine if no other piece of its component has one.
            if !self.cyclic[px] {
                if self.cyclic_pieces[cx] > 0 {
                    return false;
                }
                self.cyclic[px] = true;
                self.cyclic_pieces[cx] = 1;
            }
            return true;
        }
        if cx == cy {
            // Two pieces of one component are joined through wanted variables: merging them
            // closes a cycle through those.
            return false;
        }
        let both = self.cyclic[px] && self.cyclic[py];
        let cycles = self.cyclic_pieces[cx] + self.cyclic_pieces[cy] - u32::from(both);
        if cycles > 1 {
            return false;
        }
        let p = self.piece.union(px, py);
        self.cyclic[p] = self.cyclic[px] || self.cyclic[py];
        let c = self.component.union(cx, cy);
        self.cyclic_pieces[c] = cycles;
        true
    }
}

/// Union-find with path halving and union by size.
struct DisjointSets {
    parent: Vec<usize>,
    size: Vec<u32>,
}

impl DisjointSets {
    fn new(n: usize) -> DisjointSets {
        DisjointSets { parent: (0..n).collect(), size: vec![1; n] }
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    /// Joins two representatives; returns the new one.
    fn union(&mut self, a: usize, b: usize) -> usize {
        let (big, small) = if self.size[a] >= self.size[b] { (a, b) } else { (b, a) };
        self.parent[small] = big;
        self.size[big] += self.size[small];
        big
    }
}

/// The probes on the chords of a maximum spanning tree ([`place`]).
fn chords(g: &Graph, blocks: &[FlowBlock], end_ok: &[bool], frequency: &[f64]) -> Placement {
    let nodes = g.roles.len();
    let (mut ins, mut outs) = (vec![0usize; nodes], vec![0usize; nodes]);
    for &(a, h) in &g.edges {
        outs[a] += 1;
        ins[h] += 1;
    }
    let measure = |(a, h): (usize, usize)| -> Option<Point> {
        if h != ROOT && ins[h] == 1 && let Some(p) = g.probe_of(h, end_ok) {
            return Some(p);
        }
        if a != ROOT && outs[a] == 1 { g.probe_of(a, end_ok) } else { None }
    };
    let block_of = |node: usize| match g.roles[node] {
        Role::Root => None,
        Role::Top(b) | Role::In(b) | Role::Out(b) => Some(b),
    };
    // Unmeasurable edges first (they must be in the tree), then the most frequent.
    let weight = |e: (usize, usize)| -> f64 {
        if measure(e).is_none() {
            return f64::INFINITY;
        }
        match (block_of(e.0), block_of(e.1)) {
            (Some(a), Some(h)) => frequency[a].min(frequency[h]),
            (Some(b), None) | (None, Some(b)) => {
                // Entering or leaving the function is once per call; a split block's own
                // in -> root / root -> out edges run as often as the block.
                let split_edge = matches!(g.roles[e.0], Role::In(_)) && e.1 == ROOT || e.0 == ROOT && matches!(g.roles[e.1], Role::Out(_));
                if split_edge { frequency[b] } else { 1.0 }
            }
            (None, None) => 1.0,
        }
    };
    let mut order: Vec<usize> = (0..g.edges.len()).collect();
    let weights: Vec<f64> = g.edges.iter().map(|&e| weight(e)).collect();
    order.sort_by(|&x, &y| weights[y].total_cmp(&weights[x]).then(x.cmp(&y)));
    let mut parent: Vec<usize> = (0..nodes).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let mut points: Vec<(Point, Reason)> = Vec::new();
    let mut critical = false;
    for e in order {
        let (a, h) = g.edges[e];
        let (ra, rh) = (find(&mut parent, a), find(&mut parent, h));
        if ra != rh {
            parent[ra] = rh;
            continue;
        }
        match measure((a, h)) {
            Some(p) => points.push((p, Reason::Chord)),
            None => critical = true,
        }
    }
    if critical {
        // Measure what does not follow from the chords.
        let measured: Vec<(Point, i128)> = points.iter().map(|&(p, _)| (p, 0)).collect();
        let known = solve_graph(g, blocks.len(), &measured).map(|s| s.blocks).unwrap_or_default();
        for b in 0..blocks.len() {
            if known.get(b).copied().flatten().is_none() {
                points.push((Point::Start(b), Reason::CriticalEdge));
            }
        }
    }
    points.sort();
    points.dedup_by_key(|(p, _)| *p);
    Placement { points }
}

/// A probe at every block's start: the placement `count-every-block` uses.
pub fn every_block(blocks: &[FlowBlock]) -> Placement {
    Placement { points: (0..blocks.len()).map(|b| (Point::Start(b), Reason::Block)).collect() }
}

/// What [`solve`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// Per block: the count at its start, where it follows.
    pub blocks: Vec<Option<i128>>,
}

/// Solves the counts at each block's start from what the probes at `measured` counted (one
/// kind of count at a time: waves, or lanes). `Err` if the measurements contradict
/// conservation or a count comes out negative: the dump is not of this map's object, or a
/// counter wrapped.
pub fn solve(blocks: &[FlowBlock], measured: &[(Point, i128)]) -> Result<Solution, String> {
    let g = Graph::of(blocks);
    solve_graph(&g, blocks.len(), measured)
}

/// Propagation over the conservation equations: each node's inflow and outflow equal its
/// throughput; a probe fixes a throughput. An equation with one unknown left gives it (the
/// order of Knuth's leaf-by-leaf solution of the tree, in linear time).
fn solve_graph(g: &Graph, n_blocks: usize, measured: &[(Point, i128)]) -> Result<Solution, String> {
    let e_count = g.edges.len();
    let nodes = g.roles.len();
    let throughput = |node: usize| g.throughput_variable(node);
    // Equation: sum(sign * var) = 0.
    let mut equations: Vec<Vec<(usize, i128)>> = (0..2 * nodes).map(|q| vec![(throughput(q / 2), -1)]).collect();
    for (e, &(a, h)) in g.edges.iter().enumerate() {
        equations[2 * a + 1].push((e, 1)); // out of a
        equations[2 * h].push((e, 1)); // into h
    }
    let vars = e_count + nodes;
    let mut occurs: Vec<Vec<usize>> = vec![Vec::new(); vars];
    for (q, eq) in equations.iter().enumerate() {
        for &(v, _) in eq {
            occurs[v].push(q);
        }
    }
    let mut value: Vec<Option<i128>> = vec![None; vars];
    let mut unknown: Vec<usize> = equations.iter().map(Vec::len).collect();
    let mut work: Vec<usize> = Vec::new();
    let set = |v: usize, x: i128, value: &mut Vec<Option<i128>>, unknown: &mut Vec<usize>, work: &mut Vec<usize>| -> Result<(), String> {
        match value[v] {
            Some(old) if old != x => Err(format!("the counters contradict each other ({old} and {x} for one count)")),
            Some(_) => Ok(()),
            None => {
                value[v] = Some(x);
                for &q in &occurs[v] {
                    unknown[q] -= 1;
                    if unknown[q] <= 1 {
                        work.push(q);
                    }
                }
                Ok(())
            }
        }
    };
    for q in 0..equations.len() {
        if unknown[q] <= 1 {
            work.push(q);
        }
    }
    for &(p, x) in measured {
        let node = match p {
            Point::Start(b) => g.inn[b],
            Point::End(b) => g.out[b],
        };
        set(throughput(node), x, &mut value, &mut unknown, &mut work)?;
    }
    while let Some(q) = work.pop() {
        let eq = &equations[q];
        let mut sum = 0i128;
        let mut missing = None;
        for &(v, sign) in eq {
            match value[v] {
                Some(x) => sum += sign * x,
                None => missing = Some((v, sign)),
            }
        }
        match (unknown[q], missing) {
            (1, Some((v, sign))) => set(v, -sum * sign, &mut value, &mut unknown, &mut work)?,
            (0, _) if sum != 0 => return Err(format!("the counters break conservation of flow by {sum}")),
            _ => {}
        }
    }
    if let Some(x) = value.iter().flatten().find(|&&x| x < 0) {
        return Err(format!("a count comes out negative ({x})"));
    }
    Ok(Solution { blocks: (0..n_blocks).map(|b| value[throughput(g.inn[b])]).collect() })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pruning before [`Unmeasured`]: one [`solve_graph`] per candidate (quadratic), kept as
    /// the reference `prune` must agree with.
    fn prune_by_solving(g: &Graph, n_blocks: usize, mut points: Vec<(Point, Reason)>, frequency: &[f64]) -> Placement {
        let block = |p: Point| match p {
            Point::Start(b) | Point::End(b) => b,
        };
        let mut order: Vec<usize> = (0..points.len()).collect();
        order.sort_by(|&x, &y| frequency[block(points[y].0)].total_cmp(&frequency[block(points[x].0)]).then(x.cmp(&y)));
        let mut kept = vec![true; points.len()];
        for i in order {
            kept[i] = false;
            let measured: Vec<(Point, i128)> = points.iter().zip(&kept).filter(|&(_, &k)| k).map(|(&(p, _), _)| (p, 0)).collect();
            let determined = solve_graph(g, n_blocks, &measured).is_ok_and(|s| s.blocks.iter().all(Option::is_some));
            kept[i] = !determined;
        }
        let mut kept = kept.into_iter();
        points.retain(|_| kept.next().unwrap());
        Placement { points }
    }

    fn block(successors: &[usize], entered: bool, exits: bool, splits: bool) -> FlowBlock {
        FlowBlock { successors: successors.to_vec(), entered, exits, splits }
    }

    fn measure(placement: &Placement, truth: &[i128], ends: &[(usize, i128)]) -> Vec<(Point, i128)> {
        placement
            .points
            .iter()
            .map(|&(p, _)| {
                let x = match p {
                    Point::Start(b) => truth[b],
                    Point::End(b) => ends.iter().find(|e| e.0 == b).expect("an end probe where none was expected").1,
                };
                (p, x)
            })
            .collect()
    }

    /// A loop with an if/else inside and two exits, run by hand:
    ///
    /// ```text
    /// 0 entry -> 1
    /// 1 header -> 2, 5          (loop exit to 5)
    /// 2 -> 3, 4                 (if/else)
    /// 3 -> 4
    /// 4 latch -> 1, 6           (back-edge, and a second exit to 6)
    /// 5 -> 6
    /// 6 exit
    /// ```
    ///
    /// 10 waves: the header runs 10 + 30 times (30 back-edges), 4 of the 40 leave to 5, 36 go
    /// to 2; 20 of those take 3; 6 leave the latch to 6: 36 - 30 = 6. Block counts: 10, 40,
    /// 36, 20, 36, 4, 10.
    #[test]
    fn solves_a_loop_with_an_if_and_two_exits_from_fewer_probes() {
        let blocks = vec![
            block(&[1], true, false, false),
            block(&[2, 5], false, false, false),
            block(&[3, 4], false, false, false),
            block(&[4], false, false, false),
            block(&[1, 6], false, false, false),
            block(&[6], false, false, false),
            block(&[], false, true, false),
        ];
        let truth = [10, 40, 36, 20, 36, 4, 10];
        let placement = place(&blocks, &[true; 7]);
        // Edges: 9 real + entry + exit + 3 block edges (1, 4, 6 have two ways in) = 14 over
        // 11 nodes: 4 chords, against 7 block probes.
        assert_eq!(placement.points.len(), 4, "{placement:?}");
        let solved = solve(&blocks, &measure(&placement, &truth, &[])).unwrap();
        assert_eq!(solved.blocks, truth.iter().map(|&x| Some(x)).collect::<Vec<_>>());
        // A count that breaks conservation is an error, not a wrong answer.
        let mut bad = measure(&placement, &truth, &[]);
        bad[0].1 += 1;
        let wrong = solve(&blocks, &bad);
        assert!(wrong.is_err() || wrong.unwrap().blocks != solved.blocks);
        // Fewer measurements leave counts unknown, never guessed.
        let partial = solve(&blocks, &measure(&placement, &truth, &[])[1..]).unwrap();
        assert!(partial.blocks.iter().any(Option::is_none));
    }

    /// A divergent if whose blocks write EXEC: `0` (`s_and_saveexec`, `s_cbranch_execz`) -> 1, 2;
    /// `1` -> 2; `2` (`s_or_b64 exec` back to the whole wave) exits. Lanes: 64 enter 0, EXEC
    /// leaves it with 20, which run 1 and start 2; 2 ends with 64 again. What leaves a split
    /// block is not what entered it, so no count may be carried across one.
    #[test]
    fn exec_writing_blocks_are_measured_at_both_ends_where_needed() {
        let blocks = vec![block(&[1, 2], true, false, true), block(&[2], false, false, false), block(&[], false, true, true)];
        let placement = place(&blocks, &[true; 3]);
        let truth = [64, 20, 20];
        let solved = solve(&blocks, &measure(&placement, &truth, &[(0, 20), (2, 64)])).unwrap();
        assert_eq!(solved.blocks, vec![Some(64), Some(20), Some(20)]);
    }

    /// Critical edges on a cycle of unmeasurable edges: two blocks that both branch to the same
    /// two blocks (a K2,2 of critical edges). One of them has to be a chord; it is left
    /// unmeasured, the blocks' counts still follow from the other chords (the top-nodes let
    /// the blocks the critical edges enter be measured), with fewer probes than blocks.
    #[test]
    fn a_cycle_of_critical_edges_still_solves() {
        let blocks = vec![
            block(&[1, 2], true, false, false),
            block(&[3, 4], false, false, false),
            block(&[3, 4], false, false, false),
            block(&[], false, true, false),
            block(&[], false, true, false),
        ];
        let placement = chords(&Graph::of(&blocks), &blocks, &[true; 5], &[1.0; 5]);
        assert!(placement.points.len() < blocks.len(), "{placement:?}");
        let truth = [10, 6, 4, 7, 3];
        let solved = solve(&blocks, &measure(&placement, &truth, &[])).unwrap();
        assert_eq!(solved.blocks, truth.iter().map(|&x| Some(x)).collect::<Vec<_>>());
    }

    #[test]
    fn loop_depth_follows_back_edges() {
        let blocks = vec![block(&[1], true, false, false), block(&[2], false, false, false), block(&[1, 3], false, false, false), block(&[], false, true, false)];
        assert_eq!(loop_depths(&blocks), vec![0, 1, 1, 0]);
    }

    /// Unoptimised code writes EXEC in nearly every block: each split block adds a chord, so
    /// the chords would cost more than a probe per block; the placement never does.
    #[test]
    fn split_blocks_never_cost_more_probes_than_blocks() {
        // An if/else diamond whose every block writes EXEC, inside a loop.
        let blocks = vec![
            block(&[1], true, false, true),
            block(&[2, 3], false, false, true),
            block(&[4], false, false, true),
            block(&[4], false, false, true),
            block(&[1, 5], false, false, true),
            block(&[], false, true, true),
        ];
        let g = Graph::of(&blocks);
        let chords = chords(&g, &blocks, &[true; 6], &[1.0; 6]);
        let placement = place(&blocks, &[true; 6]);
        // Every in-count here is independent of the others (each block's inflow comes from
        // split blocks' outflows, which nothing measures): a probe per block is the least.
        assert!(chords.points.len() > blocks.len() && placement.points.len() == blocks.len(), "{placement:?} vs chords {chords:?}");
        let truth = [5, 40, 25, 15, 40, 5];
        let ends: Vec<(usize, i128)> = (0..6).map(|b| (b, truth[b])).collect();
        let solved = solve(&blocks, &measure(&placement, &truth, &ends)).unwrap();
        assert_eq!(solved.blocks, truth.iter().map(|&x| Some(x)).collect::<Vec<_>>());
    }

    /// A small deterministic generator (xorshift64*), so the random graphs are the same in
    /// every run and a failure names its seed.
    struct Random(u64);

    impl Random {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }

        fn chance(&mut self, percent: usize) -> bool {
            self.below(100) < percent
        }
    }

    /// A random function: mostly forward branches with some back-edges (loops), critical
    /// edges, exits, blocks entered from outside, and a share of split blocks that varies
    /// from none to nearly all.
    fn random_function(random: &mut Random) -> (Vec<FlowBlock>, Vec<bool>) {
        let n = 1 + random.below(24);
        let split_percent = random.below(101);
        let mut blocks = Vec::with_capacity(n);
        for b in 0..n {
            let mut successors = Vec::new();
            for _ in 0..random.below(4) {
                successors.push(if random.chance(25) { random.below(n) } else { (b + 1 + random.below(3)).min(n - 1) });
            }
            blocks.push(block(&successors, b == 0 || random.chance(5), b + 1 == n || random.chance(10), random.chance(split_percent)));
        }
        let end_ok = (0..n).map(|_| random.chance(80)).collect();
        (blocks, end_ok)
    }

    /// The pruning by union-find decides as solving the whole graph per candidate did, on
    /// random functions and on arbitrary sets of probes (start and end probes, duplicates,
    /// sets that leave some count open, where nothing may be dropped).
    #[test]
    fn prune_decides_as_the_solver_does() {
        let mut random = Random(0x9e37_79b9_7f4a_7c15);
        let mut dropped = 0;
        for seed in 0..3000 {
            let (blocks, end_ok) = random_function(&mut random);
            let n = blocks.len();
            let g = Graph::of(&blocks);
            let frequency: Vec<f64> = loop_depths(&blocks).iter().map(|&d| 8f64.powi(d.min(8) as i32)).collect();
            let mut candidates = vec![every_block(&blocks).points, chords(&g, &blocks, &end_ok, &frequency).points];
            let arbitrary: Vec<(Point, Reason)> = (0..random.below(2 * n + 1))
                .map(|_| {
                    let b = random.below(n);
                    (if blocks[b].splits && random.chance(40) { Point::End(b) } else { Point::Start(b) }, Reason::Block)
                })
                .collect();
            candidates.push(arbitrary);
            for points in candidates {
                let fast = prune(&g, points.clone(), &frequency);
                let reference = prune_by_solving(&g, n, points.clone(), &frequency);
                assert_eq!(fast, reference, "seed {seed}: {blocks:?} from {points:?}");
                dropped += points.len() - fast.points.len();
            }
        }
        // The comparison means something only if pruning drops probes often.
        assert!(dropped > 10_000, "{dropped}");
    }

    /// Functions of any size are pruned (the pruning used to be skipped above 2048 blocks,
    /// where solving per candidate took minutes): a long chain of diamonds in loops, every
    /// block writing EXEC, so a probe per block is where the pruning starts.
    #[test]
    fn huge_functions_are_pruned_too() {
        let mut blocks = vec![block(&[1], true, false, true)];
        for d in 0..2500 {
            let b = blocks.len();
            // b: head -> b+1, b+2; b+1 -> b+3; b+2 -> b+3; b+3: latch -> b (loop), b+4.
            blocks.push(block(&[b + 1, b + 2], false, false, d % 2 == 0));
            blocks.push(block(&[b + 3], false, false, false));
            blocks.push(block(&[b + 3], false, false, false));
            blocks.push(block(&[b, b + 4], false, false, d % 3 == 0));
        }
        blocks.push(block(&[], false, true, false));
        let n = blocks.len();
        let end_ok = vec![true; n];
        let placement = place(&blocks, &end_ok);
        // Fewer probes than either unpruned candidate (what a function this size used to get).
        let frequency: Vec<f64> = loop_depths(&blocks).iter().map(|&d| 8f64.powi(d.min(8) as i32)).collect();
        let unpruned = chords(&Graph::of(&blocks), &blocks, &end_ok, &frequency).points.len().min(n);
        assert!(placement.points.len() < unpruned, "{} probes for {n} blocks, {unpruned} unpruned", placement.points.len());
        let measured: Vec<(Point, i128)> = placement.points.iter().map(|&(p, _)| (p, 0)).collect();
        assert!(solve(&blocks, &measured).unwrap().blocks.iter().all(Option::is_some));
    }
}
