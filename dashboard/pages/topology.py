"""Topology & trees: the network, the node tree of a root, and its workload tree before and after merging."""

import streamlit as st

from dashboard import controls
from dashboard.views import topology

st.title("Topology & trees")
source = controls.topology_picker()
topology.counts(source)

network, tree = st.columns(2)
with network:
    st.subheader("Network")
    topology.network(source)
with tree:
    st.subheader("Node tree")
    root = topology.root_picker(source)
    topology.node_tree(source, root)

st.subheader("Workload tree before and after merging")
st.caption("Server r is the parameter server of shard r. Every node is routed along a shortest path to r; a "
           "server's parent in the node tree is the first server on its route, and its workloads follow that tree.")
phase = st.segmented_control("Phase", ["reduce", "broadcast"], default="reduce", key="topology:phase")
topology.workload_trees(source, root, phase or "reduce")
