"""Policy debugger: the RL schedule's two agents, round by round, against critical-path."""

import streamlit as st

from dashboard import controls
from dashboard.views import debugger

st.title("Policy debugger")
st.caption("The upper agent picks flow-trees each round; the lower agent then picks workloads one step at a "
           "time from those trees. Compare its rounds with critical-path's on the same workload DAG.")
source = controls.topology_picker()
method, config = debugger.options()
rl, cp = debugger.load(source, method, config)
if rl is not None and cp is not None:
    only_rl, only_cp = debugger.overview(rl, cp)
    r = debugger.round_picker(rl.n_rounds)
    trace = debugger.trace_of(rl)
    if trace:
        st.subheader("Upper agent: flow-tree selection")
        debugger.upper_agent(rl, trace, r)
        st.subheader("Lower agent: workload scheduling")
        debugger.lower_agent(rl, cp, trace, r)
    st.subheader("Where RL differs from critical-path")
    debugger.differences(rl, cp, only_rl, only_cp, r)
